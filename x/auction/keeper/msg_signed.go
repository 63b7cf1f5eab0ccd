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
// Ethereum wallet (docs/design.md#wallet-signed-bids): the spec is checked,
// then relaySigned's checks (the renter must hold the deposit as well as
// the fee), then it does what MsgPostJob does for the renter and pays the
// submitter its fee.
func (m msgServer) SubmitSignedJob(ctx context.Context, msg *types.MsgSubmitSignedJob) (*types.MsgSubmitSignedJobResponse, error) {
	bid := msg.Bid
	renter, err := m.address("renter", bid.Renter)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := bid.Spec.Validate(params); err != nil {
		return nil, err
	}
	structHash, err := types.JobBidHash(bid, renter)
	if err != nil {
		return nil, err
	}
	if bid.MaxRelayerFee.IsNil() {
		return nil, errorsmod.Wrap(types.ErrInvalidSignedMsg, "no max relayer fee")
	}
	act := signedAction{
		renter: renter, chainID: bid.CosmosChainId, evmChainID: bid.EvmChainId, contract: bid.VerifyingContract,
		nonce: bid.Nonce, deadline: bid.Deadline, structHash: structHash,
		maxFee:  sdk.NewCoin(bid.Spec.MaxPrice.Denom, bid.MaxRelayerFee),
		reserve: types.Deposit(bid.Spec.MaxPrice, bid.Spec.GpuCount, bid.Spec.DurationSeconds),
	}
	var posted *types.MsgPostJobResponse
	fee, err := m.relaySigned(ctx, params, msg.Submitter, msg.Signature, msg.RelayerFee, act, func() error {
		posted, err = m.PostJob(ctx, &types.MsgPostJob{Renter: bid.Renter, Spec: bid.Spec})
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventSignedJobRelayed{
		JobId: posted.JobId, Renter: bid.Renter, Submitter: msg.Submitter, Nonce: bid.Nonce, RelayerFee: fee,
	}); err != nil {
		return nil, err
	}
	return &types.MsgSubmitSignedJobResponse{JobId: posted.JobId, Deposit: posted.Deposit}, nil
}

// checkSigned checks what every wallet-signed message binds besides its
// content: this chain, the vault's EIP-712 domain (EVMDomain), and a deadline not past
// and not beyond max_signed_deadline_seconds from the block time. It
// returns the domain the signature is then checked under.
func (k Keeper) checkSigned(ctx context.Context, params types.Params, chainID string, evmChainID uint64, contract string, deadline uint64) (types.EIP712Domain, error) {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	if chainID != sdkCtx.ChainID() {
		return types.EIP712Domain{}, errorsmod.Wrapf(types.ErrWrongChainID, "signed for %q, this chain is %q", chainID, sdkCtx.ChainID())
	}
	domain, err := k.EVMDomain(ctx)
	if err != nil {
		return types.EIP712Domain{}, err
	}
	signedContract, err := types.ParseEVMAddress(contract)
	if err != nil {
		return types.EIP712Domain{}, err
	}
	if evmChainID != domain.ChainID || signedContract != domain.VerifyingContract {
		return types.EIP712Domain{}, errorsmod.Wrapf(types.ErrWrongDomain, "signed for EVM chain %d and contract %s; this chain takes %d and %s",
			evmChainID, signedContract.Hex(), domain.ChainID, domain.VerifyingContract.Hex())
	}
	now := uint64(max(sdkCtx.BlockTime().Unix(), 0))
	if deadline < now {
		return types.EIP712Domain{}, errorsmod.Wrapf(types.ErrSignedMsgExpired, "deadline %d, block time %d", deadline, now)
	}
	if deadline-now > params.MaxSignedDeadlineSeconds {
		return types.EIP712Domain{}, errorsmod.Wrapf(types.ErrDeadlineTooFar, "deadline %d is %d s ahead, at most %d", deadline, deadline-now, params.MaxSignedDeadlineSeconds)
	}
	return domain, nil
}

// verifyWalletSignature checks sig over the message's EIP-712 digest under
// domain and that it recovers the renter's address.
func verifyWalletSignature(domain types.EIP712Domain, structHash, sig []byte, renter sdk.AccAddress) error {
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
	if err := types.ValidateRelayerFee(asked, maxFee); err != nil {
		return sdk.Coin{}, err
	}
	return sdk.NewCoin(denom, asked), nil
}

// SubmitSignedCancel cancels a job for its renter's wallet signature: the
// checks of SubmitSignedJob (chain, domain, deadline, signature, fee,
// balance for the fee, nonce), then what MsgCancelJob does for the renter.
func (m msgServer) SubmitSignedCancel(ctx context.Context, msg *types.MsgSubmitSignedCancel) (*types.MsgSubmitSignedCancelResponse, error) {
	a := msg.Auth
	fee, err := m.relayRenterAction(ctx, msg.Submitter, msg.Signature, msg.RelayerFee, &a,
		func(renter sdk.AccAddress) ([]byte, error) { return types.CancelJobHash(a, renter) }, func() error {
			_, err := m.CancelJob(ctx, &types.MsgCancelJob{Renter: a.Renter, JobId: a.JobId})
			return err
		})
	if err != nil {
		return nil, err
	}
	return &types.MsgSubmitSignedCancelResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventSignedActionRelayed{
		Action: "cancel-job", Id: a.JobId, Renter: a.Renter, Submitter: msg.Submitter, Nonce: a.Nonce, RelayerFee: fee,
	})
}

// SubmitSignedClose closes a lease for its renter's wallet signature, as
// SubmitSignedCancel does for a job.
func (m msgServer) SubmitSignedClose(ctx context.Context, msg *types.MsgSubmitSignedClose) (*types.MsgSubmitSignedCloseResponse, error) {
	a := msg.Auth
	fee, err := m.relayRenterAction(ctx, msg.Submitter, msg.Signature, msg.RelayerFee, &a,
		func(renter sdk.AccAddress) ([]byte, error) { return types.CloseLeaseHash(a, renter) }, func() error {
			_, err := m.CloseLease(ctx, &types.MsgCloseLease{Signer: a.Renter, LeaseId: a.LeaseId, Reason: a.Reason})
			return err
		})
	if err != nil {
		return nil, err
	}
	return &types.MsgSubmitSignedCloseResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventSignedActionRelayed{
		Action: "close-lease", Id: a.LeaseId, Renter: a.Renter, Submitter: msg.Submitter, Nonce: a.Nonce, RelayerFee: fee,
	})
}

// renterAuth is what a renter's signed cancel and close have in common.
type renterAuth interface {
	GetRenter() string
	GetCosmosChainId() string
	GetEvmChainId() uint64
	GetVerifyingContract() string
	GetNonce() uint64
	GetDeadline() uint64
	GetMaxRelayerFee() sdk.Coin
}

// relayRenterAction relays a renter's signed cancel or close: hash is its
// EIP-712 struct hash, do the unsigned message's handler for the renter.
func (m msgServer) relayRenterAction(ctx context.Context, submitter string, sig []byte, asked sdkmath.Int, a renterAuth,
	hash func(renter sdk.AccAddress) ([]byte, error), do func() error,
) (sdk.Coin, error) {
	renter, err := m.address("renter", a.GetRenter())
	if err != nil {
		return sdk.Coin{}, err
	}
	structHash, err := hash(renter)
	if err != nil {
		return sdk.Coin{}, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return sdk.Coin{}, err
	}
	return m.relaySigned(ctx, params, submitter, sig, asked, signedAction{
		renter: renter, chainID: a.GetCosmosChainId(), evmChainID: a.GetEvmChainId(), contract: a.GetVerifyingContract(),
		nonce: a.GetNonce(), deadline: a.GetDeadline(), maxFee: a.GetMaxRelayerFee(), structHash: structHash,
	}, do)
}

// signedAction is a wallet-signed message as relaySigned checks it.
type signedAction struct {
	renter          sdk.AccAddress
	chainID         string
	evmChainID      uint64
	contract        string
	nonce, deadline uint64
	// maxFee is the most the submitter may be paid; reserve is what the
	// renter must hold besides the fee (a job's deposit, a withdrawal's
	// amount; zero Coin for none).
	maxFee, reserve sdk.Coin
	structHash      []byte
}

// relaySigned is every wallet-signed message's checks and relaying, in
// order, before anything moves: the Cosmos chain id, the EIP-712 domain,
// the deadline and its horizon, the signature (65 bytes, low s, recovering
// the renter), the relayer fee within the signed maximum, the renter's
// balance for reserve plus fee, the nonce. Then do (the unsigned message's
// handler for the renter) runs and the submitter is paid; it returns the fee.
func (m msgServer) relaySigned(ctx context.Context, params types.Params, submitterStr string, sig []byte, asked sdkmath.Int,
	a signedAction, do func() error,
) (sdk.Coin, error) {
	submitter, err := m.address("submitter", submitterStr)
	if err != nil {
		return sdk.Coin{}, err
	}
	domain, err := m.checkSigned(ctx, params, a.chainID, a.evmChainID, a.contract, a.deadline)
	if err != nil {
		return sdk.Coin{}, err
	}
	// Recovering a key costs what the EVM's ecrecover charges, so bad
	// signatures cost their sender like any other work.
	sdk.UnwrapSDKContext(ctx).GasMeter().ConsumeGas(types.WalletSignatureGas, "wallet signature recovery")
	if err := verifyWalletSignature(domain, a.structHash, sig, a.renter); err != nil {
		return sdk.Coin{}, err
	}
	if err := a.maxFee.Validate(); err != nil {
		return sdk.Coin{}, errorsmod.Wrapf(types.ErrInvalidSignedMsg, "max relayer fee: %v", err)
	}
	fee, err := relayerFee(asked, a.maxFee.Amount, a.maxFee.Denom)
	if err != nil {
		return sdk.Coin{}, err
	}
	// The fee and the reserve may be in different denoms (a withdrawal's
	// fee need not be in the withdrawn denom): each is covered.
	need := sdk.NewCoins(fee)
	if !a.reserve.IsNil() {
		need = need.Add(a.reserve)
	}
	for _, c := range need {
		if have := m.bank.SpendableCoin(ctx, a.renter, c.Denom); have.IsLT(c) {
			return sdk.Coin{}, errorsmod.Wrapf(types.ErrInsufficientFunds, "%s needed with the relayer fee, spendable %s", c, have)
		}
	}
	if err := m.useNonce(ctx, a.renter, a.nonce, a.deadline); err != nil {
		return sdk.Coin{}, err
	}
	if err := do(); err != nil {
		return sdk.Coin{}, err
	}
	if err := m.payRelayer(ctx, a.renter, submitter, fee); err != nil {
		return sdk.Coin{}, err
	}
	return fee, nil
}
