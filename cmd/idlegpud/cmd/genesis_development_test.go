package cmd

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/app/apptesting"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestDevelopmentGenesis: `genesis development` and `genesis add-gpu-pass`
// give a default genesis that the modules accept, with simulated GPUs
// allowed, the simulated model in the table (sorted), and the passes
// sorted by GPU; running them twice changes nothing more.
func TestDevelopmentGenesis(t *testing.T) {
	a := apptesting.NewApp(t)
	raw, err := json.Marshal(map[string]any{"app_state": a.DefaultGenesis()})
	require.NoError(t, err)
	for range 2 {
		raw, err = markDevelopment(raw)
		require.NoError(t, err)
	}
	provider := "idle1c6fc8wj5d2ppxq0r4jzm9eh8nkscfzq3q4xult"
	raw, err = addPasses(raw, provider, []string{"GPU-b", "GPU-a"})
	require.NoError(t, err)
	var doc struct {
		AppState map[string]json.RawMessage `json:"app_state"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	cdc := a.AppCodec()
	var pg providertypes.GenesisState
	cdc.MustUnmarshalJSON(doc.AppState[providertypes.ModuleName], &pg)
	require.True(t, pg.Params.AllowSimulatedGpus)
	var sg settlementtypes.GenesisState
	cdc.MustUnmarshalJSON(doc.AppState[settlementtypes.ModuleName], &sg)
	require.NoError(t, sg.Validate())
	m, ok := sg.Params.GPUModel(settlementtypes.SimulatedGPUModel)
	require.True(t, ok)
	require.Equal(t, settlementtypes.SimulatedModel(), m)
	require.Len(t, sg.Params.GpuModels, len(settlementtypes.DefaultGPUModels())+1, "added once")
	require.Len(t, sg.Verifications, 2)
	require.Equal(t, "GPU-a", sg.Verifications[0].GpuUuid)
	require.Equal(t, provider, sg.Verifications[1].Provider)
}
