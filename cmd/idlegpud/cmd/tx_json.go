package cmd

import (
	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/ante"
)

// canonicalJSONTxConfig is a TxConfig whose JSON tx decoder first refuses a
// number not written in plain decimal (app/ante: CheckTxJSON). The SDK's
// decoder reads "amount":"00001234567" as octal 342391 and the tx is then
// encoded with the chain's spelling, so the chain's ante check never sees
// the text the person read. Every command that reads a JSON tx — tx sign,
// sign-batch, multi-sign, multisign-batch, validate-signatures, simulate,
// broadcast and encode, and genesis collect-gentxs — decodes through it.
type canonicalJSONTxConfig struct {
	client.TxConfig
	decode sdk.TxDecoder
}

// withCanonicalJSON wraps cfg's JSON tx decoder; Anys are resolved as cfg's
// decoder resolves them (its signing context's files).
func withCanonicalJSON(cfg client.TxConfig) client.TxConfig {
	checker := ante.NewNumberChecker(cfg.SigningContext().FileResolver())
	return canonicalJSONTxConfig{TxConfig: cfg, decode: checker.JSONTxDecoder(cfg.TxJSONDecoder())}
}

// TxJSONDecoder implements client.TxConfig.
func (c canonicalJSONTxConfig) TxJSONDecoder() sdk.TxDecoder { return c.decode }
