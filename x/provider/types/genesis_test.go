package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func addr(b byte) string { return sdk.AccAddress(append(make([]byte, 19), b)).String() }

// validGenesis: one provider with two GPUs (one committed) and an unbonding entry.
func validGenesis() *types.GenesisState {
	op := addr(1)
	g1, g2 := h100, h100
	g2.Uuid, g2.PciBusId = "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ac", "00000000:3C:00.0"
	gpu := func(info types.GPUInfo, committed bool) types.GPU {
		return types.GPU{
			Uuid: info.Uuid, Provider: op, Model: info.Model, MemoryMib: info.MemoryMib, PciBusId: info.PciBusId,
			DriverVersion: info.DriverVersion, VbiosVersion: info.VbiosVersion, Fingerprint: info.Fingerprint(), Committed: committed,
		}
	}
	gs := types.DefaultGenesis()
	gs.Providers = []types.Provider{{
		Operator: op, Moniker: "m", Region: "eu", Endpoint: "http://127.0.0.1:1", Agents: []string{addr(2)},
		Stake: sdk.NewInt64Coin("stake", 100_000_000), Unbonding: sdk.NewInt64Coin("stake", 7),
		Status: types.PROVIDER_STATUS_ACTIVE, GpuCount: 2, CommittedGpus: 1,
	}}
	gs.Gpus = []types.GPU{gpu(g1, true), gpu(g2, false)}
	gs.Reputations = []types.ProviderReputation{{Provider: op, Reputation: types.Reputation{ReliabilityBps: 9000}}}
	gs.Unbondings = []types.UnbondingEntry{{Id: 1, Provider: op, Amount: sdk.NewInt64Coin("stake", 7), CompletesAt: time.Unix(1, 0).UTC()}}
	gs.NextUnbondingId = 2
	gs.GpuHistories = []types.GPUHistory{{Uuid: "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ad", Provider: op, ReliabilityBps: 3008}}
	return gs
}

func TestGenesisValidate(t *testing.T) {
	require.NoError(t, types.DefaultGenesis().Validate())
	require.NoError(t, validGenesis().Validate())

	for _, tc := range []struct {
		name   string
		modify func(*types.GenesisState)
		expErr string
	}{
		{"bad params", func(gs *types.GenesisState) { gs.Params.MaxGpusPerProvider = 0 }, "max_gpus_per_provider"},
		{"next id 0", func(gs *types.GenesisState) { gs.NextUnbondingId = 0 }, "next_unbonding_id must be at least 1"},
		{"duplicate provider", func(gs *types.GenesisState) { gs.Providers = append(gs.Providers, gs.Providers[0]) }, "listed twice"},
		{"bad operator", func(gs *types.GenesisState) { gs.Providers[0].Operator = "nope" }, "operator \"nope\""},
		{"bad region", func(gs *types.GenesisState) { gs.Providers[0].Region = "eu-west" }, "invalid region"},
		{"stake in another denom", func(gs *types.GenesisState) { gs.Providers[0].Stake.Denom = "uusdc" }, "must be a valid stake amount"},
		{"no status", func(gs *types.GenesisState) { gs.Providers[0].Status = types.PROVIDER_STATUS_UNSPECIFIED }, "invalid status"},
		{"duplicate UUID", func(gs *types.GenesisState) { gs.Gpus[1].Uuid = gs.Gpus[0].Uuid }, "listed twice: a UUID belongs to one provider"},
		{"GPU of nobody", func(gs *types.GenesisState) { gs.Gpus[1].Provider = addr(9) }, "does not exist"},
		{"forged fingerprint", func(gs *types.GenesisState) { gs.Gpus[0].Fingerprint = "00" }, "fingerprint 00 does not match"},
		{"malformed GPU", func(gs *types.GenesisState) { gs.Gpus[0].MemoryMib = 0 }, "memory_mib must be positive"},
		{"gpu count off", func(gs *types.GenesisState) { gs.Providers[0].GpuCount = 3 }, "gpu_count 3 / committed_gpus 1, but genesis lists 2 / 1"},
		{"committed count off", func(gs *types.GenesisState) { gs.Providers[0].CommittedGpus = 0 }, "committed_gpus 0"},
		{"unbonding sum off", func(gs *types.GenesisState) {
			gs.Providers[0].Unbonding.Amount = gs.Providers[0].Unbonding.Amount.AddRaw(1)
		}, "its entries sum to 7"},
		{"unbonding id reused", func(gs *types.GenesisState) { gs.Unbondings = append(gs.Unbondings, gs.Unbondings[0]) }, "ids must be unique"},
		{"unbonding id beyond next", func(gs *types.GenesisState) { gs.Unbondings[0].Id = 2 }, "ids must be unique and in [1, next_unbonding_id)"},
		{"unbonding of nobody", func(gs *types.GenesisState) { gs.Unbondings[0].Provider = addr(9) }, "does not exist"},
		{"zero unbonding", func(gs *types.GenesisState) {
			gs.Unbondings[0].Amount.Amount = gs.Unbondings[0].Amount.Amount.SubRaw(7)
		}, "must be a positive"},
		{"missing reputation", func(gs *types.GenesisState) { gs.Reputations = nil }, "has no reputation"},
		{"reputation twice", func(gs *types.GenesisState) { gs.Reputations = append(gs.Reputations, gs.Reputations[0]) }, "listed twice"},
		{"reliability above 100%", func(gs *types.GenesisState) { gs.Reputations[0].Reputation.ReliabilityBps = 10_001 }, "reliability_bps"},
		{"history of a malformed UUID", func(gs *types.GenesisState) { gs.GpuHistories[0].Uuid = "GPU-1" }, "gpu_histories"},
		{"history twice", func(gs *types.GenesisState) { gs.GpuHistories = append(gs.GpuHistories, gs.GpuHistories[0]) }, "listed twice"},
		{"history of a registered GPU", func(gs *types.GenesisState) { gs.GpuHistories[0].Uuid = gs.Gpus[1].Uuid }, "the GPU is registered"},
		{"history of nobody", func(gs *types.GenesisState) { gs.GpuHistories[0].Provider = addr(9) }, "does not exist"},
		{"history above 100%", func(gs *types.GenesisState) { gs.GpuHistories[0].ReliabilityBps = 10_001 }, "reliability_bps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := validGenesis()
			tc.modify(gs)
			err := gs.Validate()
			require.ErrorIs(t, err, types.ErrInvalidGenesis)
			require.ErrorContains(t, err, tc.expErr)
		})
	}
}
