package keeper_test

import (
	"context"
	"math"

	"github.com/idlegpu/idlegpu/x/provider/types"
	settlementkeeper "github.com/idlegpu/idlegpu/x/settlement/keeper"
)

// settlementModels serves x/settlement's gpu_models param as x/provider's
// GPU model table, the way the app wires it.
type settlementModels struct{ k settlementkeeper.Keeper }

func (m settlementModels) GPUModel(ctx context.Context, name string) (uint64, bool, error) {
	params, err := m.k.Params.Get(ctx)
	if err != nil {
		return 0, false, err
	}
	model, ok := params.GPUModel(name)
	return model.MemoryMib, ok, nil
}

// A GPU's memory is bounded by its model's entry in the GPU model table
// (1% above what NVML reports for it), and a model the table does not list
// is refused: its GPUs would escape the power checks and audits the table
// drives.
func (s *KeeperTestSuite) TestRegisterGPUsChecksTheModelTable() {
	s.keeper.SetGPUModels(settlementModels{s.app.SettlementKeeper})
	s.register(0)
	h200 := func(i int, mib uint64) types.GPUInfo {
		g := gpu(i)
		g.Model, g.MemoryMib = "NVIDIA H200", mib
		return g
	}
	h100 := func(i int, mib uint64) types.GPUInfo {
		g := gpu(i)
		g.MemoryMib = mib
		return g
	}
	for _, tc := range []struct {
		name   string
		gpus   []types.GPUInfo
		expErr error
	}{
		{"an H100 claiming 2^64-1 MiB", []types.GPUInfo{h100(0, math.MaxUint64)}, types.ErrInvalidGPU},
		{"an H100 1 MiB past the tolerance", []types.GPUInfo{h100(0, 82_375)}, types.ErrInvalidGPU},
		{"an H200 claiming 1 TiB", []types.GPUInfo{h200(0, 1<<20)}, types.ErrInvalidGPU},
		{"a model the table does not list", []types.GPUInfo{func() types.GPUInfo {
			g := gpu(0)
			g.Model = "NVIDIA H100 1TB HBM9"
			return g
		}()}, types.ErrUnknownGPUModel},
		{"one bad GPU refuses the message", []types.GPUInfo{h100(0, 81_559), h100(1, 1<<30)}, types.ErrInvalidGPU},
	} {
		s.Run(tc.name, func() {
			before := s.snapshot()
			s.Require().ErrorIs(s.registerInfos(0, tc.gpus...), tc.expErr)
			s.Require().Equal(before, s.snapshot(), "a rejected message changes nothing")
		})
	}

	// What NVML reports, the board's 80 GiB, the edge of the tolerance and
	// less (ECC) are all accepted.
	ok := []types.GPUInfo{h100(0, 81_559), h100(1, 81_920), h100(2, 82_374), h100(3, 76_000), h200(4, 143_771)}
	s.Require().NoError(s.registerInfos(0, ok...))
	owned, err := s.keeper.GPUs(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	mib := make([]uint64, len(owned))
	for i, g := range owned {
		mib[i] = g.MemoryMib
	}
	s.Require().Equal([]uint64{81_559, 81_920, 82_374, 76_000, 143_771}, mib)
}
