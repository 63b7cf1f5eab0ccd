package app

import (
	sdk "github.com/cosmos/cosmos-sdk/types"
	authante "github.com/cosmos/cosmos-sdk/x/auth/ante"

	"github.com/idlegpu/idlegpu/app/ante"
	"github.com/idlegpu/idlegpu/app/ante/sigverify"
)

// newAnteHandler builds the chain's ante handler: the chain's own checks in
// front of the SDK's default chain, whose secp256k1 signatures are checked by
// libsecp256k1 through a cache of verified signatures (app/ante/sigverify).
// The options are the ones x/auth/tx/config gives the SDK's chain, so gas and
// errors are unchanged; the tx module is configured not to build its own.
func (app *App) newAnteHandler() sdk.AnteHandler {
	app.sigVerifier = sigverify.NewVerifier(sigverify.DefaultCacheSize)
	sdkChain, err := ante.NewAnteHandler(ante.HandlerOptions{
		HandlerOptions: authante.HandlerOptions{
			AccountKeeper:   app.AccountKeeper,
			BankKeeper:      app.BankKeeper,
			FeegrantKeeper:  app.FeeGrantKeeper,
			SignModeHandler: app.txConfig.SignModeHandler(),
			SigGasConsumer:  authante.DefaultSigVerificationGasConsumer,
		},
		SigVerifier: app.sigVerifier,
	})
	if err != nil {
		panic(err)
	}
	// An amount must be signed in the one form the chain prints it (no
	// octal, hex, "+" or "_"), checked on the tx bytes before the SDK's chain.
	return ante.Prepend(
		ante.NewCanonicalNumbersDecorator(app.txConfig.SigningContext().FileResolver()),
		sdkChain,
	)
}
