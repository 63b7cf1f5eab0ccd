package sigverify

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/anypb"

	errorsmod "cosmossdk.io/errors"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	authante "github.com/cosmos/cosmos-sdk/x/auth/ante"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	txsigning "github.com/cosmos/cosmos-sdk/x/tx/signing"
)

// SigVerificationDecorator is the SDK's x/auth/ante SigVerificationDecorator
// (v0.54.4) with one change: a single secp256k1 signature is checked by a
// Verifier (libsecp256k1 and the cache) instead of the key's own pure-Go
// VerifySignature. Everything else — the checks and their order, sequence and
// unordered-nonce handling, gas, errors, skipping the check in simulation and
// ReCheckTx — is the SDK's code, copied because the SDK's decorator offers no
// hook for the verifier; TestDecoratorMatchesSDK holds the two together. Diff
// it against the SDK's on every SDK upgrade.
type SigVerificationDecorator struct {
	ak                   authante.AccountKeeper
	signModeHandler      *txsigning.HandlerMap
	verifier             *Verifier
	maxTxTimeoutDuration time.Duration
	unorderedTxGasCost   uint64
}

var _ sdk.AnteDecorator = SigVerificationDecorator{}

// NewSigVerificationDecorator returns the decorator with the SDK's default
// unordered-tx limits (those authante.NewAnteHandler uses without options).
func NewSigVerificationDecorator(ak authante.AccountKeeper, signModeHandler *txsigning.HandlerMap, verifier *Verifier) SigVerificationDecorator {
	return SigVerificationDecorator{
		ak:                   ak,
		signModeHandler:      signModeHandler,
		verifier:             verifier,
		maxTxTimeoutDuration: authante.DefaultMaxTimeoutDuration,
		unorderedTxGasCost:   authante.DefaultUnorderedTxGasCost,
	}
}

// AnteHandle implements sdk.AnteDecorator.
func (svd SigVerificationDecorator) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (newCtx sdk.Context, err error) {
	sigTx, ok := tx.(authsigning.Tx)
	if !ok {
		return ctx, errorsmod.Wrap(sdkerrors.ErrTxDecode, "invalid transaction type")
	}

	utx, ok := tx.(sdk.TxWithUnordered)
	isUnordered := ok && utx.GetUnordered()
	unorderedEnabled := svd.ak.UnorderedTransactionsEnabled()

	if isUnordered && !unorderedEnabled {
		return ctx, errorsmod.Wrap(sdkerrors.ErrNotSupported, "unordered transactions are not enabled")
	}

	// When simulating, sigs is a 0-length slice.
	sigs, err := sigTx.GetSignaturesV2()
	if err != nil {
		return ctx, err
	}

	signers, err := sigTx.GetSigners()
	if err != nil {
		return ctx, err
	}

	if len(sigs) != len(signers) {
		return ctx, errorsmod.Wrapf(sdkerrors.ErrUnauthorized, "invalid number of signer;  expected: %d, got %d", len(signers), len(sigs))
	}

	// An unordered tx carries one nonce for all its signers.
	if isUnordered {
		if err := svd.verifyUnorderedNonce(ctx, utx); err != nil {
			return ctx, err
		}
	}

	for i, sig := range sigs {
		if sig.Sequence > 0 && isUnordered {
			return ctx, errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "sequence is not allowed for unordered transactions")
		}
		acc, err := authante.GetSignerAcc(ctx, svd.ak, signers[i])
		if err != nil {
			return ctx, err
		}

		pubKey := acc.GetPubKey()
		if !simulate && pubKey == nil {
			return ctx, errorsmod.Wrap(sdkerrors.ErrInvalidPubKey, "pubkey on account is not set")
		}

		if !isUnordered {
			if sig.Sequence != acc.GetSequence() {
				return ctx, errorsmod.Wrapf(
					sdkerrors.ErrWrongSequence,
					"account sequence mismatch, expected %d, got %d", acc.GetSequence(), sig.Sequence,
				)
			}
		}

		genesis := ctx.BlockHeight() == 0
		chainID := ctx.ChainID()
		var accNum uint64
		if !genesis {
			accNum = acc.GetAccountNumber()
		}

		// ReCheckTx needs no signature check: the tx was checked on entry.
		if !simulate && !ctx.IsReCheckTx() && ctx.IsSigverifyTx() {
			anyPk, _ := codectypes.NewAnyWithValue(pubKey)

			signerData := txsigning.SignerData{
				Address:       acc.GetAddress().String(),
				ChainID:       chainID,
				AccountNumber: accNum,
				Sequence:      sig.Sequence,
				PubKey: &anypb.Any{
					TypeUrl: anyPk.TypeUrl,
					Value:   anyPk.Value,
				},
			}
			adaptableTx, ok := tx.(authsigning.V2AdaptableTx)
			if !ok {
				return ctx, fmt.Errorf("expected tx to implement V2AdaptableTx, got %T", tx)
			}
			txData := adaptableTx.GetSigningTxData()
			// The one change from the SDK: the key is routed through the verifier.
			err = authsigning.VerifySignature(ctx, svd.verifier.pubKeyFor(pubKey, sig.Data), signerData, sig.Data, svd.signModeHandler, txData)
			if err != nil {
				var errMsg string
				if authante.OnlyLegacyAminoSigners(sig.Data) {
					// Amino sign bytes carry the sequence, so a wrong one shows as a bad signature.
					errMsg = fmt.Sprintf("signature verification failed; please verify account number (%d), sequence (%d) and chain-id (%s)", accNum, acc.GetSequence(), chainID)
				} else {
					errMsg = fmt.Sprintf("signature verification failed; please verify account number (%d) and chain-id (%s): (%s)", accNum, chainID, err.Error())
				}
				return ctx, errorsmod.Wrap(sdkerrors.ErrUnauthorized, errMsg)
			}
		}
	}

	return next(ctx, tx, simulate)
}

// verifyUnorderedNonce checks an unordered tx's timeout (set, not past, within
// the max TTL), charges for the nonce and records it for each signer,
// refusing one already used. The SDK's, unchanged.
func (svd SigVerificationDecorator) verifyUnorderedNonce(ctx sdk.Context, unorderedTx sdk.TxWithUnordered) error {
	blockTime := ctx.BlockTime()
	timeoutTimestamp := unorderedTx.GetTimeoutTimeStamp()
	if timeoutTimestamp.IsZero() || timeoutTimestamp.Unix() == 0 {
		return errorsmod.Wrap(
			sdkerrors.ErrInvalidRequest,
			"unordered transaction must have timeout_timestamp set",
		)
	}
	if timeoutTimestamp.Before(blockTime) {
		return errorsmod.Wrap(
			sdkerrors.ErrInvalidRequest,
			"unordered transaction has a timeout_timestamp that has already passed",
		)
	}
	if timeoutTimestamp.After(blockTime.Add(svd.maxTxTimeoutDuration)) {
		return errorsmod.Wrapf(
			sdkerrors.ErrInvalidRequest,
			"unordered tx ttl exceeds %s",
			svd.maxTxTimeoutDuration.String(),
		)
	}

	ctx.GasMeter().ConsumeGas(svd.unorderedTxGasCost, "unordered tx")

	if ctx.ExecMode() == sdk.ExecModeSimulate {
		return nil
	}

	sigTx, ok := unorderedTx.(authsigning.SigVerifiableTx)
	if !ok {
		return errorsmod.Wrap(sdkerrors.ErrTxDecode, "invalid tx type")
	}
	signerAddrs, err := sigTx.GetSigners()
	if err != nil {
		return err
	}

	for _, signerAddr := range signerAddrs {
		if err := svd.ak.TryAddUnorderedNonce(ctx, signerAddr, unorderedTx.GetTimeoutTimeStamp()); err != nil {
			return errorsmod.Wrapf(
				sdkerrors.ErrInvalidRequest,
				"failed to add unordered nonce: %s", err,
			)
		}
	}

	return nil
}
