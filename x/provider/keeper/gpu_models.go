package keeper

import (
	"context"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// gpuModelTable holds the GPU model table, behind a pointer every copy of
// the keeper shares.
type gpuModelTable struct {
	table types.GPUModelTable
}

// SetGPUModels installs the GPU model table RegisterGPUs checks each GPU's
// model and memory against. The app calls it once, at wiring; x/provider
// cannot import x/settlement (which depends on it), so the table comes in
// through this narrow interface.
func (k Keeper) SetGPUModels(t types.GPUModelTable) {
	k.gpuModels.table = t
}

// checkGPUModel checks a GPU against the model table (types.CheckModelMemory).
// Without a table (an app that wires none) only the inventory's own form
// is checked.
func (k Keeper) checkGPUModel(ctx context.Context, g types.GPUInfo) error {
	if k.gpuModels == nil || k.gpuModels.table == nil {
		return nil
	}
	mib, known, err := k.gpuModels.table.GPUModel(ctx, g.Model)
	if err != nil {
		return err
	}
	return types.CheckModelMemory(g, mib, known)
}
