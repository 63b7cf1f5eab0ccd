package keeper

import (
	"context"
	"fmt"

	"cosmossdk.io/collections"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// creditDeposits credits deposits in nonce order, at most
// max_credits_per_block per block: the next nonce is credited when the
// validators that attested one identical claim for it hold more than two
// thirds of the bonded power now. A nonce short of that stops the walk, so
// no deposit is credited before an earlier one.
func (k Keeper) creditDeposits(ctx sdk.Context, params types.Params) error {
	total, err := k.staking.GetLastTotalPower(ctx)
	if err != nil {
		return err
	}
	for range params.MaxCreditsPerBlock {
		p, err := k.Progress.Get(ctx)
		if err != nil {
			return err
		}
		nonce := p.LastCreditedNonce + 1
		claim, ok, err := k.tally(ctx, nonce, total)
		if err != nil || !ok {
			return err
		}
		if err := k.credit(ctx, params, claim); err != nil {
			return err
		}
		p.LastCreditedNonce = nonce
		if err := k.Progress.Set(ctx, p); err != nil {
			return err
		}
		if err := k.Due.Set(ctx, collections.Join3(ctx.BlockHeight()+int64(params.SigningWindowBlocks), types.DueDeposit, nonce)); err != nil {
			return err
		}
	}
	return nil
}

// tally sums the current bonded power behind each distinct claim for nonce
// and returns the claim that has a supermajority, if one does.
func (k Keeper) tally(ctx context.Context, nonce uint64, total math.Int) (types.DepositClaim, bool, error) {
	type group struct {
		claim types.DepositClaim
		power math.Int
	}
	var groups []group // in first-vote order, so the walk is deterministic
	it, err := k.Votes.Iterate(ctx, collections.NewPrefixedPairRange[uint64, sdk.ValAddress](nonce))
	if err != nil {
		return types.DepositClaim{}, false, err
	}
	var votes []collections.KeyValue[collections.Pair[uint64, sdk.ValAddress], types.DepositClaim]
	for ; it.Valid(); it.Next() {
		kv, err := it.KeyValue()
		if err != nil {
			it.Close()
			return types.DepositClaim{}, false, err
		}
		votes = append(votes, kv)
	}
	it.Close()
	for _, kv := range votes {
		power, err := k.bondedPower(ctx, kv.Key.K2())
		if err != nil {
			return types.DepositClaim{}, false, err
		}
		h := kv.Value.ContentHash()
		i := 0
		for i < len(groups) && groups[i].claim.ContentHash() != h {
			i++
		}
		if i == len(groups) {
			groups = append(groups, group{claim: kv.Value, power: math.ZeroInt()})
		}
		groups[i].power = groups[i].power.AddRaw(power)
	}
	for _, g := range groups {
		if hasSupermajority(g.power, total) {
			return g.claim, true, nil
		}
	}
	return types.DepositClaim{}, false, nil
}

// credit mints the deposit to its recipient. A recipient that may not hold
// coins (a module account) gets nothing and the deposit is recorded as
// refused: the tokens stay in the vault, backing nothing on the chain, and
// the bridge moves on instead of halting on one bad deposit.
func (k Keeper) credit(ctx sdk.Context, params types.Params, claim types.DepositClaim) error {
	dep := types.Deposit{Claim: claim, Height: ctx.BlockHeight()}
	recipient, err := k.addressCodec.StringToBytes(claim.Recipient)
	if err != nil {
		return err
	}
	coins := sdk.NewCoins(sdk.NewCoin(params.Denom, claim.Amount))
	cache, write := ctx.CacheContext()
	switch {
	case k.bank.BlockedAddr(recipient):
		dep.Refused = "recipient is a blocked module account"
	default:
		if err := k.bank.MintCoins(cache, types.ModuleName, coins); err != nil {
			dep.Refused = fmt.Sprintf("mint: %v", err)
		} else if err := k.bank.SendCoinsFromModuleToAccount(cache, types.ModuleName, recipient, coins); err != nil {
			dep.Refused = fmt.Sprintf("send: %v", err)
		}
	}
	if dep.Refused == "" {
		write()
		t, err := k.Totals.Get(ctx)
		if err != nil {
			return err
		}
		t.Deposited = t.Deposited.Add(claim.Amount)
		if err := k.Totals.Set(ctx, t); err != nil {
			return err
		}
	}
	if err := k.Deposits.Set(ctx, claim.Nonce, dep); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventDepositCredited{Deposit: dep})
}
