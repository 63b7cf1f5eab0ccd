// Package cli holds the x/settlement commands autocli cannot build: the
// offline audit tools governance and providers use to size and check the
// memwalk workload.
package cli

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// AuditCmd is `idlegpud audit`: offline tools, no node needed.
func AuditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Size and compute GPU audits offline (x/settlement's memwalk/v1 workload)",
	}
	cmd.AddCommand(planCmd(), rootCmd())
	return cmd
}

// Plan is what the chain asks of a board: the shape, the expected time
// and the answer deadline (x/settlement types.Params.AuditPlan).
type Plan struct {
	Shape        audit.Shape `json:"shape"`
	TableBytes   uint64      `json:"table_bytes"`
	Reads        uint64      `json:"reads"`
	BuildSeconds float64     `json:"build_seconds"`
	WalkSeconds  float64     `json:"walk_seconds"`
	Expected     string      `json:"expected"`
	Deadline     string      `json:"deadline"`
}

func planCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "plan <memory-mib> <bandwidth-gbps>",
		Short: "Print the audit the chain would give a board with this memory and peak bandwidth (default params)",
		Example: `idlegpud audit plan 81559 3350   # an H100 80GB HBM3
idlegpud audit plan 2 1          # the development chains' simulated GPU`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			mib, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("memory MiB: %w", err)
			}
			bw, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil {
				return fmt.Errorf("bandwidth GB/s: %w", err)
			}
			p, err := types.DefaultParams().AuditPlan(types.GPUModel{Model: "board", MemoryMib: mib, MemoryBandwidthGbps: bw})
			if err != nil {
				return err
			}
			t := audit.TimingFor(p.Shape, bw)
			out, err := json.MarshalIndent(Plan{
				Shape: p.Shape, TableBytes: p.Shape.TableBytes(), Reads: p.Shape.Reads(),
				BuildSeconds: float64(t.BuildMs) / 1000, WalkSeconds: float64(t.WalkMs) / 1000, Expected: p.Expected.String(), Deadline: p.Allowance.String(),
			}, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(out))
			return err
		},
	}
}

func rootCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "root <seed-hex> <table-items> <lanes> <segments> <segment-steps>",
		Short: "Compute a transcript's Merkle root with the CPU reference (small shapes: it holds the whole table in memory)",
		Args:  cobra.ExactArgs(5),
		RunE: func(cmd *cobra.Command, args []string) error {
			seed, err := hex.DecodeString(args[0])
			if err != nil || len(seed) != audit.SeedSize {
				return fmt.Errorf("seed: want %d hex bytes", audit.SeedSize)
			}
			var dims [4]uint32
			for i := range dims {
				v, err := strconv.ParseUint(args[i+1], 10, 32)
				if err != nil {
					return fmt.Errorf("argument %d: %w", i+2, err)
				}
				dims[i] = uint32(v)
			}
			s := audit.Shape{TableItems: dims[0], Lanes: dims[1], Segments: dims[2], SegmentSteps: dims[3]}
			start := time.Now()
			states, err := audit.Run(cmd.Context(), seed, s)
			if err != nil {
				return err
			}
			root := types.NewAuditTranscript(states).Root()
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\t(%s on the CPU)\n", hex.EncodeToString(root), time.Since(start).Round(time.Millisecond))
			return err
		},
	}
}
