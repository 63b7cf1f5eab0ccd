package keeper

import (
	"context"
	"time"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// Slash takes fractionBps of the provider's bonded stake and of each of its
// unbonding entries (unbonding does not escape a slash), each part rounded
// down, and burns it: the penalty. With a beneficiary, it also takes
// fraud_reporter_share_bps of the penalty on top, from what is left
// (bonded first, then unbonding entries oldest first), and pays it to the
// beneficiary (types.SplitSlash). It returns the total taken. A fraud
// slash also counts in the provider's reputation; tombstoning is a
// separate call (Tombstone).
func (k Keeper) Slash(ctx context.Context, provider sdk.AccAddress, fractionBps uint32, reason types.SlashReason, beneficiary sdk.AccAddress) (sdk.Coin, error) {
	if err := check.NonZeroBps("fraction", fractionBps); err != nil {
		return sdk.Coin{}, errorsmod.Wrap(types.ErrInvalidSlash, err.Error())
	}
	if reason != types.SLASH_REASON_LIVENESS && reason != types.SLASH_REASON_FRAUD {
		return sdk.Coin{}, errorsmod.Wrapf(types.ErrInvalidSlash, "reason %s", reason)
	}
	p, err := k.provider(ctx, provider)
	if err != nil {
		return sdk.Coin{}, err
	}
	params, err := k.Params.Get(ctx)
	if err != nil {
		return sdk.Coin{}, err
	}
	denom := p.Stake.Denom

	entries, err := k.providerUnbondings(ctx, provider)
	if err != nil {
		return sdk.Coin{}, err
	}
	parts := make([]math.Int, 0, 1+len(entries))
	parts = append(parts, p.Stake.Amount)
	for _, e := range entries {
		parts = append(parts, e.Amount.Amount)
	}
	split := types.SplitSlash(parts, fractionBps, params.FraudReporterShareBps, !beneficiary.Empty())

	p.Stake.Amount = p.Stake.Amount.Sub(split.Cuts[0])
	for i, e := range entries {
		cut := split.Cuts[i+1]
		if cut.IsZero() {
			continue
		}
		p.Unbonding.Amount = p.Unbonding.Amount.Sub(cut)
		e.Amount.Amount = e.Amount.Amount.Sub(cut)
		if e.Amount.IsZero() {
			err = k.removeUnbonding(ctx, provider, e)
		} else {
			err = k.Unbondings.Set(ctx, e.Id, e)
		}
		if err != nil {
			return sdk.Coin{}, err
		}
	}

	reward, burned := split.Reward, split.Burned
	if reward.IsPositive() {
		if err := k.bank.SendCoinsFromModuleToAccount(ctx, types.ModuleName, beneficiary, sdk.NewCoins(sdk.NewCoin(denom, reward))); err != nil {
			return sdk.Coin{}, errorsmod.Wrap(err, "paying the slash beneficiary")
		}
	}
	if burned.IsPositive() {
		if err := k.bank.BurnCoins(ctx, types.ModuleName, sdk.NewCoins(sdk.NewCoin(denom, burned))); err != nil {
			return sdk.Coin{}, errorsmod.Wrap(err, "burning slashed stake")
		}
	}
	if err := k.setProvider(ctx, provider, p); err != nil {
		return sdk.Coin{}, err
	}
	if reason == types.SLASH_REASON_FRAUD {
		if err := k.updateReputation(ctx, provider, func(r *types.Reputation) { r.Frauds++ }); err != nil {
			return sdk.Coin{}, err
		}
	}

	slashed := sdk.NewCoin(denom, split.Total())
	var beneficiaryStr string
	if !beneficiary.Empty() {
		beneficiaryStr = k.str(beneficiary)
	}
	return slashed, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventSlashed{
		Provider:    p.Operator,
		Reason:      reason,
		FractionBps: fractionBps,
		Slashed:     slashed,
		Beneficiary: beneficiaryStr,
		Reward:      sdk.NewCoin(denom, reward),
		Burned:      sdk.NewCoin(denom, burned),
	})
}

// Jail stops the provider from taking new work until `until` (a later jail
// extends an earlier one). A tombstoned provider stays tombstoned.
func (k Keeper) Jail(ctx context.Context, provider sdk.AccAddress, until time.Time) error {
	p, err := k.provider(ctx, provider)
	if err != nil {
		return err
	}
	if p.Status == types.PROVIDER_STATUS_TOMBSTONED {
		return errorsmod.Wrapf(types.ErrTombstoned, "%s", p.Operator)
	}
	p.Status = types.PROVIDER_STATUS_JAILED
	if until.After(p.JailedUntil) {
		p.JailedUntil = until
	}
	if err := k.Providers.Set(ctx, provider, p); err != nil {
		return err
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventJailed{
		Provider: p.Operator, JailedUntil: p.JailedUntil,
	})
}

// Tombstone ends the provider for good after provable fraud: it can never
// bond, register GPUs or be matched again. Its GPUs stay bound to it, so
// the same hardware cannot come back under a new name; what is left of its
// stake can still be unbonded.
func (k Keeper) Tombstone(ctx context.Context, provider sdk.AccAddress) error {
	p, err := k.provider(ctx, provider)
	if err != nil {
		return err
	}
	if p.Status == types.PROVIDER_STATUS_TOMBSTONED {
		return nil
	}
	p.Status = types.PROVIDER_STATUS_TOMBSTONED
	if err := k.Providers.Set(ctx, provider, p); err != nil {
		return err
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventTombstoned{Provider: p.Operator})
}

// PunishLiveness is the penalty for a lease failed on missed proofs:
// slash_liveness_bps of the stake burned (nobody reported it) and a jail of
// jail_duration. A tombstoned provider is only slashed.
func (k Keeper) PunishLiveness(ctx context.Context, provider sdk.AccAddress) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if _, err := k.Slash(ctx, provider, params.SlashLivenessBps, types.SLASH_REASON_LIVENESS, nil); err != nil {
		return err
	}
	p, err := k.provider(ctx, provider)
	if err != nil {
		return err
	}
	if p.Status == types.PROVIDER_STATUS_TOMBSTONED {
		return nil
	}
	return k.Jail(ctx, provider, sdk.UnwrapSDKContext(ctx).BlockTime().Add(params.JailDuration()))
}

// PunishFraud is the penalty for proven fraud: slash_fraud_bps of the stake
// burned, fraud_reporter_share_bps of that taken on top for the reporter
// (types.SplitSlash: reporting yourself never pays), then the provider is
// tombstoned for good. It returns the total slashed.
func (k Keeper) PunishFraud(ctx context.Context, provider, reporter sdk.AccAddress) (sdk.Coin, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return sdk.Coin{}, err
	}
	taken, err := k.Slash(ctx, provider, params.SlashFraudBps, types.SLASH_REASON_FRAUD, reporter)
	if err != nil {
		return sdk.Coin{}, err
	}
	return taken, k.Tombstone(ctx, provider)
}
