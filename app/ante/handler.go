package ante

import (
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	authante "github.com/cosmos/cosmos-sdk/x/auth/ante"

	"github.com/idlegpu/idlegpu/app/ante/sigverify"
)

// HandlerOptions are the SDK's ante options plus the verifier the chain
// checks secp256k1 signatures with.
type HandlerOptions struct {
	authante.HandlerOptions

	// SigVerifier checks secp256k1 signatures (libsecp256k1, with a cache of
	// the ones already accepted).
	SigVerifier *sigverify.Verifier
}

// NewAnteHandler returns the SDK's default ante chain (authante.NewAnteHandler,
// the one the runtime would build) with its signature check made by
// sigverify.SigVerificationDecorator: the SDK's decorator with only the call
// that checks a signature replaced, so gas, errors and every other check are
// the SDK's. The decorators and their order are the SDK's; keep them so.
func NewAnteHandler(options HandlerOptions) (sdk.AnteHandler, error) {
	if options.AccountKeeper == nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrLogic, "account keeper is required for ante builder")
	}
	if options.BankKeeper == nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrLogic, "bank keeper is required for ante builder")
	}
	if options.SignModeHandler == nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrLogic, "sign mode handler is required for ante builder")
	}
	if options.SigVerifier == nil {
		return nil, errorsmod.Wrap(sdkerrors.ErrLogic, "signature verifier is required for ante builder")
	}
	// The SDK's options set fields of its own decorator; ours has the defaults.
	if len(options.SigVerifyOptions) > 0 {
		return nil, errorsmod.Wrap(sdkerrors.ErrLogic, "SigVerifyOptions are not supported by sigverify.SigVerificationDecorator")
	}

	return sdk.ChainAnteDecorators(
		authante.NewSetUpContextDecorator(), // outermost: sets the gas meter
		authante.NewExtensionOptionsDecorator(options.ExtensionOptionChecker),
		authante.NewValidateBasicDecorator(),
		authante.NewTxTimeoutHeightDecorator(),
		authante.NewValidateMemoDecorator(options.AccountKeeper),
		authante.NewConsumeGasForTxSizeDecorator(options.AccountKeeper),
		authante.NewDeductFeeDecorator(options.AccountKeeper, options.BankKeeper, options.FeegrantKeeper, options.TxFeeChecker),
		authante.NewSetPubKeyDecorator(options.AccountKeeper), // before any decorator that reads signers' keys
		authante.NewValidateSigCountDecorator(options.AccountKeeper),
		authante.NewSigGasConsumeDecorator(options.AccountKeeper, options.SigGasConsumer),
		sigverify.NewSigVerificationDecorator(options.AccountKeeper, options.SignModeHandler, options.SigVerifier),
		authante.NewIncrementSequenceDecorator(options.AccountKeeper),
	), nil
}
