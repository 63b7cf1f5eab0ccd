package keeper

import (
	"cosmossdk.io/collections"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// Migrator runs x/bridge's store migrations.
type Migrator struct{ k Keeper }

// NewMigrator returns the module's migrator.
func NewMigrator(k Keeper) Migrator { return Migrator{k: k} }

// Migrate1to2 brings a version-1 bridge to backing per holder and provable
// equivocation (README.md, "Books and invariants", "Equivocation"):
//   - params: equivocation_slash_bps takes its default;
//   - every standing deposit vote enters VoteHistory, so a later claim from
//     the same EVM block is judged against it;
//   - version 1 kept totals.unbacked as one number and never recorded whose
//     coins were unbacked, so it is marked on the denom's holders in
//     proportion to their balances (rounded down; the units left over go
//     one each to holders in address order that have room). A bridged
//     network has no unbacked coins and writes no mark.
func (m Migrator) Migrate1to2(ctx sdk.Context) error {
	k := m.k
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if params.EquivocationSlashBps == 0 {
		params.EquivocationSlashBps = types.DefaultParams().EquivocationSlashBps
	}
	// Validated as a whole by Migrate2to3, which always follows: version-2
	// params lack its fields.
	if err := k.Params.Set(ctx, params); err != nil {
		return err
	}
	votes, err := keyValues(ctx, k.Votes)
	if err != nil {
		return err
	}
	for _, kv := range votes {
		key := collections.Join3(kv.Key.K1(), kv.Key.K2(), kv.Value.EvmBlockHash)
		if err := k.VoteHistory.Set(ctx, key, kv.Value); err != nil {
			return err
		}
	}
	totals, err := k.Totals.Get(ctx)
	if err != nil {
		return err
	}
	return k.markUnbackedProRata(ctx, params.Denom, totals.Unbacked)
}

// Migrate2to3 gives the bridge the params it owns from version 3:
//   - max_duty_checks_per_block, which bounds the missed-duty checks that
//     max_credits_per_block bounded before: max_credits_per_block + 2, the
//     least that keeps up (DutyChecksKeepUp);
//   - evm_chain_id and vault_address, the vault's domain, which x/auction's
//     version 1 → 2 migration hands over (SetEVMDomain). If that has not
//     run yet they take the defaults here and it overwrites them.
func (m Migrator) Migrate2to3(ctx sdk.Context) error {
	k := m.k
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	params.MaxDutyChecksPerBlock = params.MaxCreditsPerBlock + types.DutiesBesideCredits
	if params.EvmChainId == 0 && params.VaultAddress == "" {
		def := types.DefaultParams()
		params.EvmChainId, params.VaultAddress = def.EvmChainId, def.VaultAddress
	}
	if err := params.Validate(); err != nil {
		return err
	}
	return k.Params.Set(ctx, params)
}

// markUnbackedProRata spreads unbacked over the holders of denom in
// proportion to their balances, each mark at most its holder's balance and
// the marks summing to unbacked exactly (unbacked never exceeds the supply:
// supply-is-backed).
func (k Keeper) markUnbackedProRata(ctx sdk.Context, denom string, unbacked math.Int) error {
	if !unbacked.IsPositive() {
		return nil
	}
	type holding struct {
		addr sdk.AccAddress
		bal  math.Int
	}
	var holders []holding // address order: the bank iterates its store
	supply := math.ZeroInt()
	k.bank.IterateAllBalances(ctx, func(addr sdk.AccAddress, c sdk.Coin) bool {
		if c.Denom == denom && c.Amount.IsPositive() {
			holders = append(holders, holding{addr, c.Amount})
			supply = supply.Add(c.Amount)
		}
		return false
	})
	if supply.LT(unbacked) {
		return types.ErrInvariantViolation.Wrapf("unbacked %s is above the %s supply %s", unbacked, denom, supply)
	}
	marks := make([]math.Int, len(holders))
	left := unbacked
	for i, h := range holders {
		marks[i] = h.bal.Mul(unbacked).Quo(supply)
		left = left.Sub(marks[i])
	}
	// Σ ⌊bal·U/S⌋ > U − len(holders), so fewer units are left than holders,
	// and Σ bal ≥ U leaves room for them.
	for i := 0; i < len(holders) && left.IsPositive(); i++ {
		if marks[i].LT(holders[i].bal) {
			marks[i] = marks[i].AddRaw(1)
			left = left.SubRaw(1)
		}
	}
	for i, h := range holders {
		if err := k.setUnbacked(ctx, h.addr, marks[i]); err != nil {
			return err
		}
	}
	return nil
}
