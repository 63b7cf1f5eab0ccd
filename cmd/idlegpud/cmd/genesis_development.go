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
	sdk "github.com/cosmos/cosmos-sdk/types"

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
		RunE:  func(cmd *cobra.Command, _ []string) error { return editHomeGenesis(cmd, markDevelopment) },
	}
	cmd.Flags().String(flags.FlagHome, defaultHome, "the node's home directory")
	return cmd
}

// editHomeGenesis rewrites the genesis file in --home with edit.
func editHomeGenesis(cmd *cobra.Command, edit func(raw []byte) ([]byte, error)) error {
	home, err := cmd.Flags().GetString(flags.FlagHome)
	if err != nil {
		return err
	}
	path := filepath.Join(home, "config", "genesis.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := edit(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o600)
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

// gpuPassGenesisCmd is `idlegpud genesis add-gpu-pass`: the genesis lists
// GPUs as already verified for a provider (x/settlement verifications), as
// a network that starts with audited hardware does. On a development chain
// it lets GPUs registered by hand, with no agent to run their audits, be
// offered.
func gpuPassGenesisCmd(defaultHome string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "add-gpu-pass <provider-address> <gpu-uuid>...",
		Short: "List GPUs in the genesis as audited for a provider until 2100 (x/settlement verifications)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := sdk.AccAddressFromBech32(args[0]); err != nil {
				return fmt.Errorf("provider: %w", err)
			}
			return editHomeGenesis(cmd, func(raw []byte) ([]byte, error) { return addPasses(raw, args[0], args[1:]) })
		},
	}
	cmd.Flags().String(flags.FlagHome, defaultHome, "the node's home directory")
	return cmd
}

// addPasses adds verifications to a genesis document, sorted by GPU.
func addPasses(raw []byte, provider string, uuids []string) ([]byte, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	state, _ := doc["app_state"].(map[string]any)
	settlement, _ := state[settlementtypes.ModuleName].(map[string]any)
	if settlement == nil {
		return nil, fmt.Errorf("no x/settlement state in app_state")
	}
	list, _ := settlement["verifications"].([]any)
	for _, u := range uuids {
		list = append(list, map[string]any{"gpu_uuid": u, "verified_until": "2100-01-01T00:00:00Z", "misses_in_row": 0, "provider": provider})
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, _ := list[i].(map[string]any)
		b, _ := list[j].(map[string]any)
		return fmt.Sprint(a["gpu_uuid"]) < fmt.Sprint(b["gpu_uuid"])
	})
	settlement["verifications"] = list
	return json.MarshalIndent(doc, "", "  ")
}
