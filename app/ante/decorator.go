package ante

import (
	"google.golang.org/protobuf/reflect/protodesc"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// CanonicalNumbersDecorator refuses a tx whose signed bytes spell an amount
// or price in a form other than the one the chain prints for it (see
// CanonicalInt): a wallet or UI shows the signed text, so the amount a
// signer approves must be the amount that moves. The decoded tx has lost
// the text, so the decorator reads ctx.TxBytes(), which baseapp sets in
// every mode. The check is stateless, so ReCheckTx skips it.
type CanonicalNumbersDecorator struct {
	checker *NumberChecker
}

var _ sdk.AnteDecorator = CanonicalNumbersDecorator{}

// NewCanonicalNumbersDecorator returns the decorator; resolver must know
// every message a tx may pack in an Any (the TxConfig's signing context's
// file resolver, the one the tx decoder uses).
func NewCanonicalNumbersDecorator(resolver protodesc.Resolver) CanonicalNumbersDecorator {
	return CanonicalNumbersDecorator{checker: NewNumberChecker(resolver)}
}

// AnteHandle implements sdk.AnteDecorator.
func (d CanonicalNumbersDecorator) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	if !ctx.IsReCheckTx() {
		if err := d.checker.CheckTxBytes(ctx.TxBytes()); err != nil {
			return ctx, err
		}
	}
	return next(ctx, tx, simulate)
}

// Prepend returns an ante handler that runs d, then inner (which may be nil).
// The app puts the chain's own decorators in front of the SDK's ante chain
// (NewAnteHandler).
func Prepend(d sdk.AnteDecorator, inner sdk.AnteHandler) sdk.AnteHandler {
	if inner == nil {
		inner = func(ctx sdk.Context, _ sdk.Tx, _ bool) (sdk.Context, error) { return ctx, nil }
	}
	return func(ctx sdk.Context, tx sdk.Tx, simulate bool) (sdk.Context, error) {
		return d.AnteHandle(ctx, tx, simulate, inner)
	}
}
