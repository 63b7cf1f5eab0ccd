package wallet

import (
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// TypedDataJSON is td as eth_signTypedData_v4 takes it, with every integer
// (the message's and the domain's chainId) a plain decimal string. A JSON
// number past 2^53 (a 64-bit nonce, a uint256 amount) would be rounded by
// the browser's JSON.parse, and go-ethereum writes the chainId in hex;
// wallets read decimal strings exactly, and so does a person.
func TypedDataJSON(td apitypes.TypedData) ([]byte, error) {
	msg := make(map[string]any, len(td.Message))
	for k, v := range td.Message {
		msg[k] = decimalStrings(v)
	}
	var chainID string
	if td.Domain.ChainId != nil {
		chainID = (*big.Int)(td.Domain.ChainId).String()
	}
	return json.Marshal(struct {
		Types       apitypes.Types `json:"types"`
		PrimaryType string         `json:"primaryType"`
		Domain      decimalDomain  `json:"domain"`
		Message     map[string]any `json:"message"`
	}{td.Types, td.PrimaryType, decimalDomain{td.Domain, chainID}, msg})
}

// decimalDomain is a domain whose chainId is written as a decimal string
// (the outer field hides the embedded one's JSON).
type decimalDomain struct {
	apitypes.TypedDataDomain
	ChainID string `json:"chainId,omitempty"`
}

// decimalStrings writes a message value's integers as decimal strings,
// into arrays and nested structs.
func decimalStrings(v any) any {
	switch x := v.(type) {
	case *big.Int:
		return x.String()
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = decimalStrings(e)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = decimalStrings(e)
		}
		return out
	default:
		return v
	}
}
