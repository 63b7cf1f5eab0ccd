package keeper

import (
	"bytes"
	"context"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// SubmitSignedJob posts a job for a renter who signed a JobBid in an
// Ethereum wallet (docs/design.md#wallet-signed-bids). Every check comes
// before anything moves: the Cosmos chain id, the EIP-712 domain, the
// deadline and its horizon, the signature (65 bytes, low s, recovering the
// renter's address), the relayer fee within the signed maximum, the nonce,
// and the renter's balance for the deposit and the fee. Then it does what
// MsgPostJob does for the renter and pays the submitter its fee.
func (m msgServer) SubmitSignedJob(ctx context.Context, msg *types.MsgSubmitSignedJob) (*types.MsgSubmitSignedJobResponse, error) {
	submitter, err := m.address("submitter", msg.Submitter)
	if err != nil {
		return nil, err
	}
	bid := msg.Bid
	renter, err := m.address("renter", bid.Renter)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.checkSigned(ctx, params, bid.CosmosChainId, bid.EvmChainId, bid.VerifyingContract, bid.Deadline); err != nil {
		return nil, err
	}
	structHash, err := types.JobBidHash(bid, renter)
	if err != nil {
		return nil, err
	}
	// Recovering a key costs what the EVM's ecrecover charges, so bad
	// signatures cost their sender like any other work.
	sdk.UnwrapSDKContext(ctx).GasMeter().ConsumeGas(types.WalletSignatureGas, "wallet signature recovery")
	if err := verifyWalletSignature(params, structHash, msg.Signature, renter); err != nil {
		return nil, err
	}
	fee, err := relayerFee(msg.RelayerFee, bid.MaxRelayerFee, bid.Spec.MaxPrice.Denom)
	if err != nil {
		return nil, err
	}
	if err := msg.Bid.Spec.Validate(params); err != nil {
		return nil, err
	}
	need := types.Deposit(bid.Spec.MaxPrice, bid.Spec.GpuCount, bid.Spec.DurationSeconds).Add(fee)
	if have := m.bank.SpendableCoin(ctx, renter, need.Denom); have.IsLT(need) {
		return nil, errorsmod.Wrapf(types.ErrInsufficientFunds, "deposit and relayer fee %s, spendable %s", need, have)
	}
	if err := m.useNonce(ctx, renter, bid.Nonce, bid.Deadline); err != nil {
		return nil, err
	}
	posted, err := m.PostJob(ctx, &types.MsgPostJob{Renter: bid.Renter, Spec: bid.Spec})
	if err != nil {
		return nil, err
	}
	if fee.IsPositive() {
		if err := m.bank.SendCoins(ctx, renter, submitter, sdk.NewCoins(fee)); err != nil {
			return nil, errorsmod.Wrap(types.ErrInsufficientFunds, err.Error())
		}
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventSignedJobRelayed{
		JobId: posted.JobId, Renter: bid.Renter, Submitter: msg.Submitter, Nonce: bid.Nonce, RelayerFee: fee,
	}); err != nil {
		return nil, err
	}
	return &types.MsgSubmitSignedJobResponse{JobId: posted.JobId, Deposit: posted.Deposit}, nil
}

// checkSigned checks what every wallet-signed message binds besides its
// content: this chain, the params' EIP-712 domain, and a deadline not past
// and not beyond max_signed_deadline_seconds from the block time.
func (k Keeper) checkSigned(ctx context.Context, params types.Params, chainID string, evmChainID uint64, contract string, deadline uint64) error {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	if chainID != sdkCtx.ChainID() {
		return errorsmod.Wrapf(types.ErrWrongChainID, "signed for %q, this chain is %q", chainID, sdkCtx.ChainID())
	}
	domain, err := params.Domain()
	if err != nil {
		return err
	}
	signedContract, err := types.ParseEVMAddress(contract)
	if err != nil {
		return err
	}
	if evmChainID != domain.ChainID || signedContract != domain.VerifyingContract {
		return errorsmod.Wrapf(types.ErrWrongDomain, "signed for EVM chain %d and contract %s; this chain takes %d and %s",
			evmChainID, signedContract.Hex(), domain.ChainID, domain.VerifyingContract.Hex())
	}
	now := uint64(max(sdkCtx.BlockTime().Unix(), 0))
	if deadline < now {
		return errorsmod.Wrapf(types.ErrSignedMsgExpired, "deadline %d, block time %d", deadline, now)
	}
	if deadline-now > params.MaxSignedDeadlineSeconds {
		return errorsmod.Wrapf(types.ErrDeadlineTooFar, "deadline %d is %d s ahead, at most %d", deadline, deadline-now, params.MaxSignedDeadlineSeconds)
	}
	return nil
}

// verifyWalletSignature checks sig over the message's EIP-712 digest under
// the params' domain and that it recovers the renter's address.
func verifyWalletSignature(params types.Params, structHash, sig []byte, renter sdk.AccAddress) error {
	domain, err := params.Domain()
	if err != nil {
		return err
	}
	signer, err := types.RecoverWalletSigner(types.TypedDataDigest(domain, structHash), sig)
	if err != nil {
		return err
	}
	if !bytes.Equal(signer.Bytes(), renter) {
		return errorsmod.Wrapf(types.ErrSignerMismatch, "signed by %s, the renter is %#x", signer.Hex(), []byte(renter))
	}
	return nil
}

// relayerFee is the fee the submitter asks, in denom, if within the
// signed maximum.
func relayerFee(asked, maxFee sdkmath.Int, denom string) (sdk.Coin, error) {
	if asked.IsNil() || asked.IsNegative() {
		return sdk.Coin{}, errorsmod.Wrap(types.ErrInvalidSignedMsg, "relayer fee must not be negative")
	}
	if maxFee.IsNil() || asked.GT(maxFee) {
		return sdk.Coin{}, errorsmod.Wrapf(types.ErrRelayerFeeTooHigh, "asked %s, the renter allowed %s", asked, maxFee)
	}
	return sdk.NewCoin(denom, asked), nil
}

// SubmitSignedCancel cancels a job for its renter's wallet signature: the
// checks of SubmitSignedJob (chain, domain, deadline, signature, fee,
// balance for the fee, nonce), then what MsgCancelJob does for the renter.
func (m msgServer) SubmitSignedCancel(ctx context.Context, msg *types.MsgSubmitSignedCancel) (*types.MsgSubmitSignedCancelResponse, error) {
	a := msg.Auth
	renter, err := m.address("renter", a.Renter)
	if err != nil {
		return nil, err
	}
	structHash, err := types.CancelJobHash(a, renter)
	if err != nil {
		return nil, err
	}
	act := signedAction{
		name: "cancel-job", id: a.JobId, renter: renter, renterStr: a.Renter, chainID: a.CosmosChainId,
		evmChainID: a.EvmChainId, contract: a.VerifyingContract, nonce: a.Nonce, deadline: a.Deadline,
		maxFee: a.MaxRelayerFee, structHash: structHash,
	}
	err = m.relaySigned(ctx, msg.Submitter, msg.Signature, msg.RelayerFee, act, func() error {
		_, err := m.CancelJob(ctx, &types.MsgCancelJob{Renter: a.Renter, JobId: a.JobId})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &types.MsgSubmitSignedCancelResponse{}, nil
}

// SubmitSignedClose closes a lease for its renter's wallet signature, as
// SubmitSignedCancel does for a job.
func (m msgServer) SubmitSignedClose(ctx context.Context, msg *types.MsgSubmitSignedClose) (*types.MsgSubmitSignedCloseResponse, error) {
	a := msg.Auth
	renter, err := m.address("renter", a.Renter)
	if err != nil {
		return nil, err
	}
	structHash, err := types.CloseLeaseHash(a, renter)
	if err != nil {
		return nil, err
	}
	act := signedAction{
		name: "close-lease", id: a.LeaseId, renter: renter, renterStr: a.Renter, chainID: a.CosmosChainId,
		evmChainID: a.EvmChainId, contract: a.VerifyingContract, nonce: a.Nonce, deadline: a.Deadline,
		maxFee: a.MaxRelayerFee, structHash: structHash,
	}
	err = m.relaySigned(ctx, msg.Submitter, msg.Signature, msg.RelayerFee, act, func() error {
		_, err := m.CloseLease(ctx, &types.MsgCloseLease{Signer: a.Renter, LeaseId: a.LeaseId, Reason: a.Reason})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &types.MsgSubmitSignedCloseResponse{}, nil
}

// signedAction is a wallet-signed cancel or close as relaySigned checks it.
type signedAction struct {
	name            string
	id              uint64
	renter          sdk.AccAddress
	renterStr       string
	chainID         string
	evmChainID      uint64
	contract        string
	nonce, deadline uint64
	maxFee          sdk.Coin
	structHash      []byte
}

// relaySigned checks a signed action, uses its nonce, runs do (the
// unsigned message's handler for the renter) and pays the submitter.
func (m msgServer) relaySigned(ctx context.Context, submitterStr string, sig []byte, asked sdkmath.Int, a signedAction, do func() error) error {
	submitter, err := m.address("submitter", submitterStr)
	if err != nil {
		return err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return err
	}
	if err := m.checkSigned(ctx, params, a.chainID, a.evmChainID, a.contract, a.deadline); err != nil {
		return err
	}
	sdk.UnwrapSDKContext(ctx).GasMeter().ConsumeGas(types.WalletSignatureGas, "wallet signature recovery")
	if err := verifyWalletSignature(params, a.structHash, sig, a.renter); err != nil {
		return err
	}
	if err := a.maxFee.Validate(); err != nil {
		return errorsmod.Wrapf(types.ErrInvalidSignedMsg, "max relayer fee: %v", err)
	}
	fee, err := relayerFee(asked, a.maxFee.Amount, a.maxFee.Denom)
	if err != nil {
		return err
	}
	if have := m.bank.SpendableCoin(ctx, a.renter, fee.Denom); have.IsLT(fee) {
		return errorsmod.Wrapf(types.ErrInsufficientFunds, "relayer fee %s, spendable %s", fee, have)
	}
	if err := m.useNonce(ctx, a.renter, a.nonce, a.deadline); err != nil {
		return err
	}
	if err := do(); err != nil {
		return err
	}
	if fee.IsPositive() {
		if err := m.bank.SendCoins(ctx, a.renter, submitter, sdk.NewCoins(fee)); err != nil {
			return errorsmod.Wrap(types.ErrInsufficientFunds, err.Error())
		}
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventSignedActionRelayed{
		Action: a.name, Id: a.id, Renter: a.renterStr, Submitter: submitterStr, Nonce: a.nonce, RelayerFee: fee,
	})
}
