package browsertest

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// EIP-1193 and JSON-RPC error codes the wallet answers with.
const (
	CodeUnauthorized       = 4100   // the address is not the wallet's
	CodeUnsupportedMethod  = 4200   // the wallet does not implement the method
	CodeInvalidParams      = -32602 // malformed params, or typed data for another chain
	CodeInternal           = -32603 // the wallet failed to sign
	unsupportedMethodError = "unsupported method"
)

// Wallet is the account behind an injected window.ethereum. It signs with Key
// and reports ChainID, as a browser wallet connected to that chain would.
type Wallet struct {
	Key     *ecdsa.PrivateKey
	ChainID uint64
	// evm is the node ConnectEVM gave it; nil: the wallet only signs.
	evm *ethclient.Client
}

// NewWallet returns a wallet with a fresh random key on the given chain.
func NewWallet(t testing.TB, chainID uint64) *Wallet {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatalf("browser: generating a wallet key: %v", err)
	}
	return &Wallet{Key: key, ChainID: chainID}
}

// Address is the wallet's account.
func (w *Wallet) Address() common.Address {
	return crypto.PubkeyToAddress(w.Key.PublicKey)
}

// ProviderError is an EIP-1193 error; the page sees it as the rejection of
// its request, an Error with this code and message.
type ProviderError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Data is what the node added to a refused call: a revert's data.
	Data any `json:"data,omitempty"`
}

// Error implements error.
func (e *ProviderError) Error() string {
	return fmt.Sprintf("provider error %d: %s", e.Code, e.Message)
}

func providerErrorf(code int, format string, args ...any) *ProviderError {
	return &ProviderError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Call is one request the page made of the wallet: its method and its params
// as decoded from JSON (a typed-data string stays a string).
type Call struct {
	Method string
	Params []any
}

// Request answers one EIP-1193 request the way the injected provider does. The
// error, when not nil, is a *ProviderError.
func (w *Wallet) Request(method string, params []any) (any, error) {
	switch method {
	case "eth_requestAccounts", "eth_accounts":
		return []string{w.Address().Hex()}, nil
	case "eth_chainId":
		return hexutil.EncodeUint64(w.ChainID), nil
	case "eth_signTypedData_v4":
		return w.signTypedData(params)
	case "personal_sign":
		return w.personalSign(params)
	default:
		if w.evm != nil {
			if res, err, ok := w.evmRequest(method, params); ok {
				return res, err
			}
		}
		return nil, providerErrorf(CodeUnsupportedMethod, "%s: %s", unsupportedMethodError, method)
	}
}

// signTypedData answers eth_signTypedData_v4 with params [address, typedData],
// typedData a JSON string (or, leniently, an object).
func (w *Wallet) signTypedData(params []any) (any, error) {
	if len(params) != 2 {
		return nil, providerErrorf(CodeInvalidParams, "eth_signTypedData_v4 wants [address, typedData], got %d params", len(params))
	}
	if err := w.checkAddress(params[0]); err != nil {
		return nil, err
	}
	raw, ok := params[1].(string)
	if !ok {
		b, err := json.Marshal(params[1])
		if err != nil {
			return nil, providerErrorf(CodeInvalidParams, "typed data: %v", err)
		}
		raw = string(b)
	}
	var td apitypes.TypedData
	if err := json.Unmarshal([]byte(raw), &td); err != nil {
		return nil, providerErrorf(CodeInvalidParams, "typed data is not valid JSON: %v", err)
	}
	// A wallet refuses typed data for another chain (MetaMask does), so a page
	// that builds the domain with the wrong chain id fails here as it would
	// for a user.
	if id := (*big.Int)(td.Domain.ChainId); id != nil && (!id.IsUint64() || id.Uint64() != w.ChainID) {
		return nil, providerErrorf(CodeInvalidParams, "typed data domain chainId %s does not match the wallet's chain %d", id, w.ChainID)
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, providerErrorf(CodeInvalidParams, "hashing typed data: %v", err)
	}
	return w.sign(hash)
}

// personalSign answers personal_sign with params [message, address]: an EIP-191
// signature of the message, which is hex bytes when it is 0x-prefixed hex and
// UTF-8 text otherwise.
func (w *Wallet) personalSign(params []any) (any, error) {
	if len(params) < 2 {
		return nil, providerErrorf(CodeInvalidParams, "personal_sign wants [message, address], got %d params", len(params))
	}
	msg, ok := params[0].(string)
	if !ok {
		return nil, providerErrorf(CodeInvalidParams, "personal_sign message is %T, not a string", params[0])
	}
	if err := w.checkAddress(params[1]); err != nil {
		return nil, err
	}
	data := []byte(msg)
	if b, err := hexutil.Decode(msg); err == nil {
		data = b
	}
	return w.sign(accounts.TextHash(data))
}

// checkAddress refuses a request to sign for any account but the wallet's.
func (w *Wallet) checkAddress(p any) error {
	s, ok := p.(string)
	if !ok || !common.IsHexAddress(s) {
		return providerErrorf(CodeInvalidParams, "%v is not an address", p)
	}
	if common.HexToAddress(s) != w.Address() {
		return providerErrorf(CodeUnauthorized, "address %s is not the wallet's account %s", s, w.Address().Hex())
	}
	return nil
}

// sign returns 0x r||s||v with v 27 or 28, as wallets do.
func (w *Wallet) sign(hash []byte) (any, error) {
	sig, err := crypto.Sign(hash, w.Key)
	if err != nil {
		return nil, providerErrorf(CodeInternal, "signing: %v", err)
	}
	sig[crypto.RecoveryIDOffset] += 27
	return hexutil.Encode(sig), nil
}
