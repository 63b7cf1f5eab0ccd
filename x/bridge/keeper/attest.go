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
// Crediting happens in EndBlock once identical standing votes carry more
// than two thirds of the power (credit.go). A new nonce is attested in
// order (NextNonce); an uncredited nonce already attested is re-attested
// under the rules of reattest.
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
	p, err := m.Progress.Get(ctx)
	if err != nil {
		return nil, err
	}
	next, err := m.NextNonce(ctx, val)
	if err != nil {
		return nil, err
	}
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	switch {
	case msg.Nonce <= p.LastCreditedNonce:
		return nil, errorsmod.Wrapf(types.ErrAlreadyAttested, "nonce %d is credited; next is %d", msg.Nonce, next)
	case msg.Nonce > next:
		return nil, errorsmod.Wrapf(types.ErrNonceOutOfOrder, "nonce %d; next is %d", msg.Nonce, next)
	case msg.Nonce < next:
		return &types.MsgAttestDepositResponse{}, m.reattest(sdkCtx, val, signer, claim)
	}
	return &types.MsgAttestDepositResponse{}, m.placeVote(sdkCtx, val, signer.Validator, claim)
}

// reattest is the rule for a second attestation of an uncredited nonce:
//   - the standing claim again is refused (ErrAlreadyAttested);
//   - a claim from an EVM block the validator ever voted from (VoteHistory,
//     kept across supersedes and revocations) with other content is
//     equivocation: one block holds one Deposited event per nonce, so the
//     validator signed two different claims about the same thing. It is
//     slashed and jailed, and the new claim does not count. Checking the
//     whole history, not only the standing vote, keeps a vote in between
//     (or a revocation) from laundering the second claim;
//   - any other claim replaces the standing vote (or, revoked, is a new
//     vote): the block the first came from was reorganised away, or a flip
//     back to a block it voted from with the same content, and the
//     validator follows the canonical chain. Never punished.
func (m msgServer) reattest(ctx sdk.Context, val sdk.ValAddress, signer types.EvmSigner, claim types.DepositClaim) error {
	before, err := m.VoteHistory.Get(ctx, collections.Join3(claim.Nonce, val, claim.EvmBlockHash))
	switch {
	case err == nil && before.ContentHash() != claim.ContentHash():
		return m.punishDepositEquivocation(ctx, val, signer, claim)
	case err != nil && !errors.Is(err, collections.ErrNotFound):
		return err
	}
	old, err := m.Votes.Get(ctx, collections.Join(claim.Nonce, val))
	if errors.Is(err, collections.ErrNotFound) {
		return m.placeVote(ctx, val, signer.Validator, claim)
	}
	if err != nil {
		return err
	}
	if old.ContentHash() == claim.ContentHash() {
		return errorsmod.Wrapf(types.ErrAlreadyAttested, "nonce %d: the same claim", claim.Nonce)
	}
	if err := m.placeVote(ctx, val, signer.Validator, claim); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventAttestationSuperseded{
		Validator: signer.Validator, Nonce: claim.Nonce, OldBlockHash: old.EvmBlockHash, NewBlockHash: claim.EvmBlockHash})
}

// placeVote makes claim the validator's standing vote for its nonce.
func (k Keeper) placeVote(ctx sdk.Context, val sdk.ValAddress, valStr string, claim types.DepositClaim) error {
	if err := k.recordConflict(ctx, val, valStr, claim); err != nil {
		return err
	}
	if err := k.Votes.Set(ctx, collections.Join(claim.Nonce, val), claim); err != nil {
		return err
	}
	if err := k.VoteHistory.Set(ctx, collections.Join3(claim.Nonce, val, claim.EvmBlockHash), claim); err != nil {
		return err
	}
	last, err := k.LastAttested.Get(ctx, val)
	if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return err
	}
	if err := k.LastAttested.Set(ctx, val, max(last, claim.Nonce)); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventDepositAttested{Validator: valStr, Nonce: claim.Nonce})
}

// RevokeAttestation withdraws a validator's standing vote for a nonce not
// yet credited, when the deposit it names is gone from the EVM chain and no
// other has taken its nonce yet. The validator's next nonce does not move:
// it may attest the nonce again, from any block.
func (m msgServer) RevokeAttestation(ctx context.Context, msg *types.MsgRevokeAttestation) (*types.MsgRevokeAttestationResponse, error) {
	val, signer, err := m.orchestratorOf(ctx, msg.Orchestrator)
	if err != nil {
		return nil, err
	}
	p, err := m.Progress.Get(ctx)
	if err != nil {
		return nil, err
	}
	if msg.Nonce <= p.LastCreditedNonce {
		return nil, errorsmod.Wrapf(types.ErrNoStandingVote, "nonce %d is credited", msg.Nonce)
	}
	key := collections.Join(msg.Nonce, val)
	old, err := m.Votes.Get(ctx, key)
	if errors.Is(err, collections.ErrNotFound) {
		return nil, errorsmod.Wrapf(types.ErrNoStandingVote, "%s has no vote for nonce %d", signer.Validator, msg.Nonce)
	}
	if err != nil {
		return nil, err
	}
	if err := m.Votes.Remove(ctx, key); err != nil {
		return nil, err
	}
	return &types.MsgRevokeAttestationResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(
		&types.EventAttestationRevoked{Validator: signer.Validator, Nonce: msg.Nonce, BlockHash: old.EvmBlockHash})
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
