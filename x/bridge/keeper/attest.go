package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// NextNonce is the deposit nonce a validator must attest next: one past the
// later of its own last attestation and the last credited deposit. So an
// orchestrator attests in order and never twice, and one that was offline
// (or joined late) resumes after what was already decided without it.
func (k Keeper) NextNonce(ctx context.Context, val sdk.ValAddress) (uint64, error) {
	last, err := k.LastAttested.Get(ctx, val)
	if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return 0, err
	}
	p, err := k.Progress.Get(ctx)
	if err != nil {
		return 0, err
	}
	return max(last, p.LastCreditedNonce) + 1, nil
}

// AttestDeposit records a bonded validator's report of one Deposited event.
// Crediting happens in EndBlock once identical reports carry more than two
// thirds of the power (credit.go).
func (m msgServer) AttestDeposit(ctx context.Context, msg *types.MsgAttestDeposit) (*types.MsgAttestDepositResponse, error) {
	val, signer, err := m.orchestratorOf(ctx, msg.Orchestrator)
	if err != nil {
		return nil, err
	}
	power, err := m.bondedPower(ctx, val)
	if err != nil {
		return nil, err
	}
	if power <= 0 {
		return nil, errorsmod.Wrapf(types.ErrNotValidator, "%s is not bonded", signer.Validator)
	}
	claim, err := msg.Claim()
	if err != nil {
		return nil, err
	}
	next, err := m.NextNonce(ctx, val)
	if err != nil {
		return nil, err
	}
	switch {
	case msg.Nonce < next:
		return nil, errorsmod.Wrapf(types.ErrAlreadyAttested, "nonce %d; next is %d", msg.Nonce, next)
	case msg.Nonce > next:
		return nil, errorsmod.Wrapf(types.ErrNonceOutOfOrder, "nonce %d; next is %d", msg.Nonce, next)
	}

	sdkCtx := sdk.UnwrapSDKContext(ctx)
	if err := m.recordConflict(sdkCtx, val, signer.Validator, claim); err != nil {
		return nil, err
	}
	if err := m.Votes.Set(ctx, collections.Join(msg.Nonce, val), claim); err != nil {
		return nil, err
	}
	if err := m.LastAttested.Set(ctx, val, msg.Nonce); err != nil {
		return nil, err
	}
	return &types.MsgAttestDepositResponse{}, sdkCtx.EventManager().EmitTypedEvent(
		&types.EventDepositAttested{Validator: signer.Validator, Nonce: msg.Nonce})
}

// recordConflict stores and events a claim that differs from one another
// validator already made for the same nonce. The vote still counts for its
// own content: a minority's wrong claim simply never reaches the threshold.
func (k Keeper) recordConflict(ctx sdk.Context, val sdk.ValAddress, valStr string, claim types.DepositClaim) error {
	other, found, err := k.differingVoter(ctx, claim)
	if err != nil || !found {
		return err
	}
	otherStr, err := k.valCodec.BytesToString(other)
	if err != nil {
		return err
	}
	c := types.Conflict{Nonce: claim.Nonce, Validator: valStr, Claim: claim, OtherValidator: otherStr, Height: ctx.BlockHeight()}
	if err := k.Conflicts.Set(ctx, collections.Join(claim.Nonce, val), c); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventAttestationConflict{Conflict: c})
}

// differingVoter returns the first validator whose vote for claim's nonce
// has other content. The iterator is closed before the caller writes.
func (k Keeper) differingVoter(ctx context.Context, claim types.DepositClaim) (sdk.ValAddress, bool, error) {
	want := claim.ContentHash()
	it, err := k.Votes.Iterate(ctx, collections.NewPrefixedPairRange[uint64, sdk.ValAddress](claim.Nonce))
	if err != nil {
		return nil, false, err
	}
	defer it.Close()
	for ; it.Valid(); it.Next() {
		kv, err := it.KeyValue()
		if err != nil {
			return nil, false, err
		}
		if kv.Value.ContentHash() != want {
			return kv.Key.K2(), true, nil
		}
	}
	return nil, false, nil
}
