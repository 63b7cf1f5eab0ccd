package keeper

import (
	"context"
	"errors"
	"slices"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"
	slashingtypes "github.com/cosmos/cosmos-sdk/x/slashing/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// Equivocation is punished only when the chain's own state proves it, so an
// honest validator is never slashed: for a deposit, two claims for one nonce
// naming the same EVM block (reattest); for a root or valset, a signature by
// one of the validator's EVM keys over a root digest of an epoch whose kept
// root differs (SubmitRootEvidence), or over a checkpoint of a valset nonce
// the chain made differently (SubmitValsetEvidence). A claim that merely
// differs from other validators' is recorded as a Conflict and not
// punished: the minority may be the honest one. Missed duties are never
// punished (duties.go).

type equivocationKey = collections.Triple[sdk.ValAddress, uint32, uint64]

// punishDepositEquivocation slashes and jails a validator that attested a
// second, different claim for a nonce from the block its standing vote
// names. The standing vote stays; the second claim does not count.
func (k Keeper) punishDepositEquivocation(ctx sdk.Context, val sdk.ValAddress, signer types.EvmSigner, claim types.DepositClaim) error {
	key := collections.Join3(val, types.EquivocationDeposit, claim.Nonce)
	if err := k.notPunished(ctx, key, signer.Validator); err != nil {
		return err
	}
	return k.punish(ctx, key, ctx.BlockHeight(), types.Equivocation{
		Validator: signer.Validator, Kind: types.EquivocationDeposit, Id: claim.Nonce,
		Claim: &claim, Submitter: signer.Orchestrator,
	})
}

// SubmitRootEvidence judges a signature over the vault's root digest of
// (valset_nonce, epoch, root, total_cumulative) for this chain's vault. The
// chain builds one root per epoch and its validators sign only that root's
// digest, so a signature by a validator's EVM key (current or replaced)
// over anything else for a kept epoch proves equivocation: the validator is
// slashed and jailed, once per epoch. Anyone may submit it. What the chain
// cannot prove is refused and changes nothing: an unknown signer, an epoch
// whose root is pruned or not yet built, or the chain's own root.
func (m msgServer) SubmitRootEvidence(goCtx context.Context, msg *types.MsgSubmitRootEvidence) (*types.MsgSubmitRootEvidenceResponse, error) {
	ctx := sdk.UnwrapSDKContext(goCtx)
	if _, err := m.addressCodec.StringToBytes(msg.Submitter); err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "submitter: %v", err)
	}
	root, err := types.ParseHash32(msg.Root)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrNotProvable, "root: %s", err)
	}
	if msg.TotalCumulative.IsNil() || msg.TotalCumulative.IsNegative() {
		return nil, errorsmod.Wrap(types.ErrNotProvable, "total_cumulative must not be negative")
	}
	domain, err := m.vaultDomain(ctx)
	if err != nil {
		return nil, err
	}
	digest, err := domain.RootDigest(msg.ValsetNonce, msg.Epoch, common.Hash(root), msg.TotalCumulative.BigInt())
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrNotProvable, "digest: %s", err)
	}
	kept, err := m.Roots.Get(ctx, msg.Epoch)
	if errors.Is(err, collections.ErrNotFound) {
		return nil, errorsmod.Wrapf(types.ErrNotProvable, "epoch %d has no kept root (pruned, or not built yet)", msg.Epoch)
	}
	if err != nil {
		return nil, err
	}
	if kept.ValsetNonce == msg.ValsetNonce && common.HexToHash(kept.Root) == common.Hash(root) &&
		kept.TotalCumulative.Equal(msg.TotalCumulative) {
		return nil, errorsmod.Wrapf(types.ErrNotProvable, "epoch %d: the chain's own root", msg.Epoch)
	}
	// The signature carries no height; the chain's root for the epoch is
	// the earliest it can be proven against, so stake that started
	// unbonding since is slashed too.
	v, err := m.punishSigner(ctx, digest, msg.Signature, types.EquivocationRoot, msg.Epoch, kept.Height, msg.Submitter)
	if err != nil {
		return nil, err
	}
	return &types.MsgSubmitRootEvidenceResponse{Validator: v}, nil
}

// SubmitValsetEvidence judges a signature over the vault's checkpoint of
// the valset (nonce, validators, powers) for this chain's vault. The chain
// makes one valset per nonce and keeps them all, and its validators sign
// only those checkpoints, so a signature by a validator's EVM key over
// another set for a nonce the chain made proves equivocation: the
// validator is slashed and jailed, once per nonce. Anyone may submit it.
// Refused, changing nothing: an unknown signer, a nonce the chain has not
// made, or the chain's own valset.
func (m msgServer) SubmitValsetEvidence(goCtx context.Context, msg *types.MsgSubmitValsetEvidence) (*types.MsgSubmitValsetEvidenceResponse, error) {
	ctx := sdk.UnwrapSDKContext(goCtx)
	if _, err := m.addressCodec.StringToBytes(msg.Submitter); err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "submitter: %v", err)
	}
	if len(msg.Validators) != len(msg.Powers) {
		return nil, errorsmod.Wrapf(types.ErrNotProvable, "%d validators, %d powers", len(msg.Validators), len(msg.Powers))
	}
	signed := payout.Valset{Nonce: msg.Nonce, Powers: msg.Powers}
	for _, v := range msg.Validators {
		a, err := types.ParseEvmAddress(v)
		if err != nil {
			return nil, errorsmod.Wrapf(types.ErrNotProvable, "validator: %s", err)
		}
		signed.Validators = append(signed.Validators, a)
	}
	domain, err := m.vaultDomain(ctx)
	if err != nil {
		return nil, err
	}
	checkpoint := domain.ValsetCheckpoint(signed)
	made, err := m.Valsets.Get(ctx, msg.Nonce)
	if errors.Is(err, collections.ErrNotFound) {
		return nil, errorsmod.Wrapf(types.ErrNotProvable, "the chain has made no valset %d", msg.Nonce)
	}
	if err != nil {
		return nil, err
	}
	own, err := made.VaultValset()
	if err != nil {
		return nil, err
	}
	if slices.Equal(own.Validators, signed.Validators) && slices.Equal(own.Powers, signed.Powers) {
		return nil, errorsmod.Wrapf(types.ErrNotProvable, "valset %d: the chain's own", msg.Nonce)
	}
	v, err := m.punishSigner(ctx, checkpoint, msg.Signature, types.EquivocationValset, msg.Nonce, made.Height, msg.Submitter)
	if err != nil {
		return nil, err
	}
	return &types.MsgSubmitValsetEvidenceResponse{Validator: v}, nil
}

// vaultDomain is the domain of this chain's vault; with no vault named,
// nothing can have been signed for it.
func (k Keeper) vaultDomain(ctx sdk.Context) (payout.Domain, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return payout.Domain{}, err
	}
	domain, ok, err := k.domain(ctx, params)
	if err != nil {
		return payout.Domain{}, err
	}
	if !ok {
		return payout.Domain{}, errorsmod.Wrap(types.ErrNotProvable, "no vault is named: nothing can be signed for it")
	}
	return domain, nil
}

// punishSigner punishes, once, the validator whose EVM key (current or
// replaced) signed digest, a digest the caller has shown the chain never
// made: a root or valset of kind with id, contradicting a record made at
// infractionHeight. It returns the validator.
func (k Keeper) punishSigner(ctx sdk.Context, digest common.Hash, sig []byte, kind uint32, id uint64, infractionHeight int64, submitter string) (string, error) {
	evm, err := types.RecoverSigner(digest, sig)
	if err != nil {
		return "", err
	}
	val, sk, err := k.signerOf(ctx, evm)
	if err != nil {
		return "", err
	}
	key := collections.Join3(val, kind, id)
	if err := k.notPunished(ctx, key, sk.Validator); err != nil {
		return "", err
	}
	return sk.Validator, k.punish(ctx, key, infractionHeight, types.Equivocation{
		Validator: sk.Validator, Kind: kind, Id: id,
		Digest: digest.Hex(), EvmAddress: evm.Hex(), Signature: sig, Submitter: submitter,
	})
}

// signerOf is the validator that registered evm, now or before.
func (k Keeper) signerOf(ctx context.Context, evm common.Address) (sdk.ValAddress, types.SignerKey, error) {
	sk, err := k.SignerKeys.Get(ctx, evm.Bytes())
	if errors.Is(err, collections.ErrNotFound) {
		return nil, types.SignerKey{}, errorsmod.Wrapf(types.ErrUnknownEvmSigner, "%s signed it", evm.Hex())
	}
	if err != nil {
		return nil, types.SignerKey{}, err
	}
	val, err := k.valCodec.StringToBytes(sk.Validator)
	return val, sk, err
}

// notPunished refuses an offence already punished.
func (k Keeper) notPunished(ctx sdk.Context, key equivocationKey, valStr string) error {
	has, err := k.Equivocations.Has(ctx, key)
	if err != nil {
		return err
	}
	if has {
		return errorsmod.Wrapf(types.ErrAlreadyPunished, "%s, kind %d, id %d", valStr, key.K2(), key.K3())
	}
	return nil
}

// punish slashes equivocation_slash_bps of the validator's tokens at its
// power now, and of what began unbonding or redelegating from it since
// infractionHeight (the height of the chain's record the offence is proven
// against: a signature carries no height), jails it until at least the
// slashing module's downtime jail duration from now, records e under key
// and emits it.
func (k Keeper) punish(ctx sdk.Context, key equivocationKey, infractionHeight int64, e types.Equivocation) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	v, err := k.staking.GetValidator(ctx, key.K1())
	if err != nil {
		return errorsmod.Wrapf(types.ErrNotValidator, "%s: %v", e.Validator, err)
	}
	if v.IsUnbonded() {
		return errorsmod.Wrapf(types.ErrNotValidator, "%s is unbonded: nothing at stake", e.Validator)
	}
	consAddr, err := v.GetConsAddr()
	if err != nil {
		return err
	}
	power := v.PotentialConsensusPower(k.staking.PowerReduction(ctx))
	fraction := math.LegacyNewDecWithPrec(int64(params.EquivocationSlashBps), 4)
	if err := k.slashing.SlashWithInfractionReason(ctx, consAddr, fraction, power, infractionHeight,
		stakingtypes.Infraction_INFRACTION_UNSPECIFIED); err != nil {
		return err
	}
	after, err := k.staking.GetValidator(ctx, key.K1())
	if err != nil {
		return err
	}
	if !after.IsJailed() {
		if err := k.slashing.Jail(ctx, consAddr); err != nil {
			return err
		}
	}
	if err := k.jailAtLeast(ctx, consAddr); err != nil {
		return err
	}
	e.Slashed = v.Tokens.Sub(after.Tokens)
	e.Height = ctx.BlockHeight()
	if err := k.Equivocations.Set(ctx, key, e); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventEquivocationSlashed{Equivocation: e})
}

// jailAtLeast keeps a jailed validator jailed for the downtime jail
// duration from now, never shortening a longer jail (a tombstone's).
func (k Keeper) jailAtLeast(ctx sdk.Context, consAddr sdk.ConsAddress) error {
	d, err := k.slashing.DowntimeJailDuration(ctx)
	if err != nil {
		return err
	}
	until := ctx.BlockTime().Add(d)
	info, err := k.slashing.GetValidatorSigningInfo(ctx, consAddr)
	if errors.Is(err, slashingtypes.ErrNoSigningInfoFound) {
		return nil // never bonded as far as x/slashing knows: Unjail checks no time
	}
	if err != nil {
		return err
	}
	if !info.JailedUntil.Before(until) {
		return nil
	}
	return k.slashing.JailUntil(ctx, consAddr, until)
}
