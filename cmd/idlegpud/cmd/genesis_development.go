package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client/flags"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// developmentGenesisCmd is `idlegpud genesis development`: it marks a
// genesis as a development chain's (x/provider's allow_simulated_gpus, and
// x/settlement's table carrying the simulated model whose audits run on a
// CPU), so agents with the simulated backend can join it. A real network's
// genesis never has either.
func developmentGenesisCmd(defaultHome string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "development",
		Short: "Mark the genesis as a development chain's: simulated GPUs allowed, the simulated model in the GPU table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := cmd.Flags().GetString(flags.FlagHome)
			if err != nil {
				return err
			}
			path := filepath.Join(home, "config", "genesis.json")
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out, err := markDevelopment(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			return os.WriteFile(path, out, 0o600)
		},
	}
	cmd.Flags().String(flags.FlagHome, defaultHome, "the node's home directory")
	return cmd
}

// markDevelopment edits a genesis document; numbers are kept as written.
func markDevelopment(raw []byte) ([]byte, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	state, _ := doc["app_state"].(map[string]any)
	provider, _ := state[providertypes.ModuleName].(map[string]any)
	pparams, _ := provider["params"].(map[string]any)
	settlement, _ := state[settlementtypes.ModuleName].(map[string]any)
	sparams, _ := settlement["params"].(map[string]any)
	if pparams == nil || sparams == nil {
		return nil, fmt.Errorf("no x/provider or x/settlement params in app_state")
	}
	pparams["allow_simulated_gpus"] = true
	models, _ := sparams["gpu_models"].([]any)
	m := settlementtypes.SimulatedModel()
	kept := models[:0]
	for _, e := range models {
		if em, _ := e.(map[string]any); em["model"] != m.Model {
			kept = append(kept, e)
		}
	}
	kept = append(kept, map[string]any{
		"model": m.Model, "idle_w": m.IdleW, "max_w": m.MaxW,
		"memory_mib": strconv.FormatUint(m.MemoryMib, 10), "memory_bandwidth_gbps": strconv.FormatUint(m.MemoryBandwidthGbps, 10),
	})
	sort.SliceStable(kept, func(i, j int) bool {
		a, _ := kept[i].(map[string]any)
		b, _ := kept[j].(map[string]any)
		return fmt.Sprint(a["model"]) < fmt.Sprint(b["model"])
	})
	sparams["gpu_models"] = kept
	return json.MarshalIndent(doc, "", "  ")
}
