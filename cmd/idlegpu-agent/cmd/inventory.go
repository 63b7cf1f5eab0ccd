package cmd

import (
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
)

// inventoryGPU is one entry of `inventory --json`: x/provider's GPUInfo in
// its proto-JSON form (memory_mib is a uint64, so a string).
type inventoryGPU struct {
	UUID          string `json:"uuid"`
	Model         string `json:"model"`
	MemoryMiB     string `json:"memory_mib"`
	PCIBusID      string `json:"pci_bus_id"`
	DriverVersion string `json:"driver_version"`
	VBIOSVersion  string `json:"vbios_version"`
}

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
				return writeInventoryJSON(cmd, devs)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "BACKEND %s\n", b.Name())
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

func writeInventoryJSON(cmd *cobra.Command, devs []gpu.Info) error {
	out := struct {
		GPUs []inventoryGPU `json:"gpus"`
	}{GPUs: make([]inventoryGPU, 0, len(devs))}
	for _, d := range devs {
		out.GPUs = append(out.GPUs, inventoryGPU{UUID: d.UUID, Model: d.Model, MemoryMiB: strconv.FormatUint(d.MemoryMiB, 10),
			PCIBusID: d.PCIBusID, DriverVersion: d.DriverVersion, VBIOSVersion: d.VBIOSVersion})
	}
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
