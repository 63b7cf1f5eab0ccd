package cmd

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/chainclient"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

func inventoryCmd() *cobra.Command {
	var (
		asJSON  bool
		backend string
	)
	cmd := &cobra.Command{
		Use:   "inventory",
		Short: "List the GPUs the agent sees (--json: the input of `idlegpud tx provider register-gpus`)",
		Example: `idlegpu-agent inventory
idlegpu-agent inventory --json | idlegpud tx provider register-gpus - --from agent --provider idle1...`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := logger(cmd)
			if err != nil {
				return err
			}
			home, _ := cmd.Flags().GetString(flagHome)
			c := config.Default(home).GPU
			if cfg, err := loadConfig(cmd); err == nil {
				c = cfg.GPU
			}
			if backend != "" {
				c.Backend = backend
			}
			b, err := openGPUs(c, log)
			if err != nil {
				return err
			}
			defer b.Close()
			devs, err := b.Devices(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				// stdout stays exactly register-gpus's input (its decoder
				// refuses unknown fields), so the backend goes to stderr.
				fmt.Fprintf(cmd.ErrOrStderr(), "backend %s%s\n", b.Name(), simNote(b.Name()))
				return writeInventoryJSON(cmd, devs, b.Name() == "sim")
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "BACKEND %s%s\n", b.Name(), simNote(b.Name()))
			fmt.Fprintln(w, "INDEX\tUUID\tMODEL\tMEMORY\tPCI\tDRIVER\tVBIOS\tCUDA")
			for i, d := range devs {
				fmt.Fprintf(w, "%d\t%s\t%s\t%d MiB\t%s\t%s\t%s\t%s\n", i, d.UUID, d.Model, d.MemoryMiB, d.PCIBusID, d.DriverVersion, d.VBIOSVersion, d.CUDAVersion)
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the inventory JSON register-gpus accepts")
	cmd.Flags().StringVar(&backend, "gpu-backend", "", "override gpu.backend: auto, nvml or sim")
	return cmd
}

// simNote marks simulated GPUs wherever a backend is named.
func simNote(backend string) string {
	if backend == "sim" {
		return " (SIMULATED GPUs: for tests and demos; register accepts them on development chains only)"
	}
	return ""
}

// gpuInfos is the inventory as x/provider registers it: both `inventory
// --json` and `register` send exactly these fields (the CUDA version
// describes the stack, not the GPU, so it is not registered). Simulated
// GPUs say so: the chain audits them with its simulated model, on
// development chains only.
func gpuInfos(devs []gpu.Info, simulated bool) []providertypes.GPUInfo {
	infos := make([]providertypes.GPUInfo, 0, len(devs))
	for _, d := range devs {
		infos = append(infos, providertypes.GPUInfo{Uuid: d.UUID, Model: d.Model, MemoryMib: d.MemoryMiB,
			PciBusId: d.PCIBusID, DriverVersion: d.DriverVersion, VbiosVersion: d.VBIOSVersion, Simulated: simulated})
	}
	return infos
}

// writeInventoryJSON prints {"gpus": [...]}, each GPUInfo in the app
// codec's proto-JSON, the shape `idlegpud tx provider register-gpus` reads.
func writeInventoryJSON(cmd *cobra.Command, devs []gpu.Info, simulated bool) error {
	enc, err := chainclient.Encoding()
	if err != nil {
		return err
	}
	out := struct {
		GPUs []json.RawMessage `json:"gpus"`
	}{GPUs: make([]json.RawMessage, 0, len(devs))}
	for _, g := range gpuInfos(devs, simulated) {
		b, err := enc.Codec.MarshalJSON(&g)
		if err != nil {
			return err
		}
		out.GPUs = append(out.GPUs, b)
	}
	return writeJSON(cmd, out)
}

// writeJSON prints v as indented JSON on stdout.
func writeJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
