package app

import (
	"context"

	settlementkeeper "github.com/idlegpu/idlegpu/x/settlement/keeper"
)

// gpuModelTable serves x/settlement's gpu_models param as x/provider's GPU
// model table: a registered GPU's model must be listed, and its memory
// within what NVML reports for it (x/provider README, GPU model table).
type gpuModelTable struct{ settlement settlementkeeper.Keeper }

// GPUModel returns the memory NVML reports for the model, if the table lists it.
func (t gpuModelTable) GPUModel(ctx context.Context, name string) (uint64, bool, error) {
	params, err := t.settlement.Params.Get(ctx)
	if err != nil {
		return 0, false, err
	}
	m, ok := params.GPUModel(name)
	return m.MemoryMib, ok, nil
}
