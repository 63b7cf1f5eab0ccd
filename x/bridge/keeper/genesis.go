package keeper

import (
	"context"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// InitGenesis writes a validated genesis state and then checks the books
// against the bank: a bridged genesis must not hold supply of the bridged
// denom that no deposit (or the declared totals.unbacked) stands behind, and
// each declared unbacked holder must hold what it is declared to.
func (k Keeper) InitGenesis(ctx context.Context, gs *types.GenesisState) error {
	if err := gs.Validate(); err != nil {
		return err
	}
	if err := k.Params.Set(ctx, gs.Params); err != nil {
		return err
	}
	if err := k.Totals.Set(ctx, gs.Totals); err != nil {
		return err
	}
	progress := gs.Progress
	progress.Recipients = uint32(len(gs.Cumulatives))
	if err := k.Progress.Set(ctx, progress); err != nil {
		return err
	}
	for _, s := range gs.Signers {
		val, err := k.valCodec.StringToBytes(s.Validator)
		if err != nil {
			return err
		}
		orch, err := k.addressCodec.StringToBytes(s.Orchestrator)
		if err != nil {
			return err
		}
		evm, err := types.ParseEvmAddress(s.EvmAddress)
		if err != nil {
			return err
		}
		s.EvmAddress = evm.Hex()
		if err := k.Signers.Set(ctx, val, s); err != nil {
			return err
		}
		if err := k.EvmSigners.Set(ctx, evm.Bytes(), val); err != nil {
			return err
		}
		if err := k.Orchestrators.Set(ctx, orch, val); err != nil {
			return err
		}
	}
	for _, v := range gs.Valsets {
		if err := k.Valsets.Set(ctx, v.Nonce, v); err != nil {
			return err
		}
	}
	if err := k.setConfirms(ctx, k.ValsetConfirms, gs.ValsetConfirms); err != nil {
		return err
	}
	if err := k.setConfirms(ctx, k.RootConfirms, gs.RootConfirms); err != nil {
		return err
	}
	for _, v := range gs.VoteHistory {
		val, err := k.valCodec.StringToBytes(v.Validator)
		if err != nil {
			return err
		}
		if err := k.VoteHistory.Set(ctx, collections.Join3(v.Claim.Nonce, sdk.ValAddress(val), v.Claim.EvmBlockHash), v.Claim); err != nil {
			return err
		}
		last, _ := k.LastAttested.Get(ctx, val)
		if err := k.LastAttested.Set(ctx, val, max(last, v.Claim.Nonce)); err != nil {
			return err
		}
	}
	for _, v := range gs.Votes {
		val, err := k.valCodec.StringToBytes(v.Validator)
		if err != nil {
			return err
		}
		if err := k.Votes.Set(ctx, collections.Join(v.Claim.Nonce, sdk.ValAddress(val)), v.Claim); err != nil {
			return err
		}
		// A standing vote is in the history too (a genesis from before the
		// history was kept has only the standing votes).
		if err := k.VoteHistory.Set(ctx, collections.Join3(v.Claim.Nonce, sdk.ValAddress(val), v.Claim.EvmBlockHash), v.Claim); err != nil {
			return err
		}
		last, _ := k.LastAttested.Get(ctx, val)
		if err := k.LastAttested.Set(ctx, val, max(last, v.Claim.Nonce)); err != nil {
			return err
		}
	}
	for _, d := range gs.Deposits {
		if err := k.Deposits.Set(ctx, d.Claim.Nonce, d); err != nil {
			return err
		}
	}
	for _, c := range gs.Conflicts {
		val, err := k.valCodec.StringToBytes(c.Validator)
		if err != nil {
			return err
		}
		if err := k.Conflicts.Set(ctx, collections.Join(c.Nonce, sdk.ValAddress(val)), c); err != nil {
			return err
		}
	}
	for _, c := range gs.Cumulatives {
		if err := k.Cumulative.Set(ctx, common.HexToAddress(c.EvmAddress).Bytes(), c.Amount); err != nil {
			return err
		}
	}
	for _, r := range gs.Roots {
		if err := k.Roots.Set(ctx, r.Epoch, r); err != nil {
			return err
		}
	}
	for _, l := range gs.Leaves {
		if err := k.Leaves.Set(ctx, collections.Join(l.Epoch, common.HexToAddress(l.Leaf.EvmAddress).Bytes()), l.Leaf.Amount); err != nil {
			return err
		}
	}
	for _, m := range gs.Misses {
		val, err := k.valCodec.StringToBytes(m.Validator)
		if err != nil {
			return err
		}
		if err := k.Misses.Set(ctx, val, m); err != nil {
			return err
		}
	}
	for _, d := range gs.Due {
		if err := k.Due.Set(ctx, collections.Join3(d.Height, d.Kind, d.Id)); err != nil {
			return err
		}
	}
	for _, h := range gs.UnbackedHolders {
		addr, err := k.addressCodec.StringToBytes(h.Address)
		if err != nil {
			return err
		}
		if bal := k.bank.GetBalance(ctx, addr, gs.Params.Denom); bal.Amount.LT(h.Amount) {
			return errorsmod.Wrapf(types.ErrInvalidGenesis, "unbacked holder %s declares %s%s, holds %s", h.Address, h.Amount, gs.Params.Denom, bal)
		}
		if err := k.Unbacked.Set(ctx, addr, h.Amount); err != nil {
			return err
		}
	}
	if err := k.initEquivocationGenesis(ctx, gs); err != nil {
		return err
	}
	return k.SupplyInvariant(ctx)
}

func (k Keeper) setConfirms(ctx context.Context, m collections.Map[collections.Pair[uint64, sdk.ValAddress], types.Confirm], cs []types.GenesisConfirm) error {
	for _, c := range cs {
		val, err := k.valCodec.StringToBytes(c.Confirm.Validator)
		if err != nil {
			return err
		}
		if err := m.Set(ctx, collections.Join(c.Id, sdk.ValAddress(val)), c.Confirm); err != nil {
			return err
		}
	}
	return nil
}

// ExportGenesis returns the whole module state.
func (k Keeper) ExportGenesis(ctx context.Context) (*types.GenesisState, error) {
	gs := &types.GenesisState{}
	var err error
	if gs.Params, err = k.Params.Get(ctx); err != nil {
		return nil, err
	}
	if gs.Totals, err = k.Totals.Get(ctx); err != nil {
		return nil, err
	}
	if gs.Progress, err = k.Progress.Get(ctx); err != nil {
		return nil, err
	}
	if gs.Signers, err = values(ctx, k.Signers); err != nil {
		return nil, err
	}
	if gs.Valsets, err = values(ctx, k.Valsets); err != nil {
		return nil, err
	}
	if gs.ValsetConfirms, err = exportConfirms(ctx, k.ValsetConfirms); err != nil {
		return nil, err
	}
	if gs.RootConfirms, err = exportConfirms(ctx, k.RootConfirms); err != nil {
		return nil, err
	}
	votes, err := keyValues(ctx, k.Votes)
	if err != nil {
		return nil, err
	}
	for _, kv := range votes {
		v, err := k.valCodec.BytesToString(kv.Key.K2())
		if err != nil {
			return nil, err
		}
		gs.Votes = append(gs.Votes, types.GenesisVote{Validator: v, Claim: kv.Value})
	}
	history, err := keyValues(ctx, k.VoteHistory)
	if err != nil {
		return nil, err
	}
	for _, kv := range history {
		v, err := k.valCodec.BytesToString(kv.Key.K2())
		if err != nil {
			return nil, err
		}
		gs.VoteHistory = append(gs.VoteHistory, types.GenesisVote{Validator: v, Claim: kv.Value})
	}
	if gs.Deposits, err = values(ctx, k.Deposits); err != nil {
		return nil, err
	}
	if gs.Conflicts, err = values(ctx, k.Conflicts); err != nil {
		return nil, err
	}
	cums, err := keyValues(ctx, k.Cumulative)
	if err != nil {
		return nil, err
	}
	for _, kv := range cums {
		gs.Cumulatives = append(gs.Cumulatives, types.Cumulative{EvmAddress: common.BytesToAddress(kv.Key).Hex(), Amount: kv.Value})
	}
	if gs.Roots, err = values(ctx, k.Roots); err != nil {
		return nil, err
	}
	leaves, err := keyValues(ctx, k.Leaves)
	if err != nil {
		return nil, err
	}
	for _, kv := range leaves {
		gs.Leaves = append(gs.Leaves, types.GenesisLeaf{Epoch: kv.Key.K1(),
			Leaf: types.Cumulative{EvmAddress: common.BytesToAddress(kv.Key.K2()).Hex(), Amount: kv.Value}})
	}
	if gs.Misses, err = values(ctx, k.Misses); err != nil {
		return nil, err
	}
	it, err := k.Due.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	due, err := it.Keys()
	if err != nil {
		return nil, err
	}
	for _, d := range due {
		gs.Due = append(gs.Due, types.GenesisDue{Height: d.K1(), Kind: d.K2(), Id: d.K3()})
	}
	marks, err := keyValues(ctx, k.Unbacked)
	if err != nil {
		return nil, err
	}
	for _, kv := range marks {
		addr, err := k.addressCodec.BytesToString(kv.Key)
		if err != nil {
			return nil, err
		}
		gs.UnbackedHolders = append(gs.UnbackedHolders, types.UnbackedHolder{Address: addr, Amount: kv.Value})
	}
	if err := k.exportEquivocationGenesis(ctx, gs); err != nil {
		return nil, err
	}
	return gs, nil
}

func exportConfirms(ctx context.Context, m collections.Map[collections.Pair[uint64, sdk.ValAddress], types.Confirm]) ([]types.GenesisConfirm, error) {
	kvs, err := keyValues(ctx, m)
	if err != nil {
		return nil, err
	}
	out := make([]types.GenesisConfirm, len(kvs))
	for i, kv := range kvs {
		out[i] = types.GenesisConfirm{Id: kv.Key.K1(), Confirm: kv.Value}
	}
	return out, nil
}

func values[K, V any](ctx context.Context, m collections.Map[K, V]) ([]V, error) {
	it, err := m.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	return it.Values()
}

func keyValues[K, V any](ctx context.Context, m collections.Map[K, V]) ([]collections.KeyValue[K, V], error) {
	it, err := m.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	return it.KeyValues()
}
