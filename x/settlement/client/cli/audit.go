// Package cli holds the x/settlement commands autocli cannot build: the
// offline audit tools an auditor and a provider run next to their txs.
package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
)

// Plan is what an auditor keeps between MsgOpenAudit and MsgRevealAudit.
// The salt and expected result stay secret until the reveal.
type Plan struct {
	Workload   string `json:"workload"`
	WorkUnits  uint64 `json:"work_units"`
	Seed       string `json:"seed"`
	Salt       string `json:"salt"`
	Expected   string `json:"expected"`
	Commitment string `json:"commitment"`
}

// AuditCmd is `idlegpud audit`: offline tools, no node needed.
func AuditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Prepare and compute GPU audits offline (x/settlement audit workloads)",
	}
	cmd.AddCommand(planCmd(), runCmd())
	return cmd
}

func planCmd() *cobra.Command {
	var seedHex string
	cmd := &cobra.Command{
		Use:   "plan <work-units>",
		Short: "Draw a seed and salt, compute the expected result with the CPU reference, print the plan as JSON",
		Long: `Prints the plan an auditor keeps secret until the reveal. The CPU reference takes about
12 ms per unit on one core; for large audits compute the result on your own GPU and
build the commitment as sha256(salt ‖ expected).`,
		Example: `idlegpud audit plan 2000 > plan.json
idlegpud tx settlement open-audit <provider> <gpu-uuid> idlegpu/matmul-u32/v1 $(jq -r .seed plan.json) 2000 \
  $(jq -r .commitment plan.json) 2026-12-03T12:00:00Z 5000000uusdc --from auditor
idlegpud tx settlement reveal-audit <audit-id> $(jq -r .salt plan.json) $(jq -r .expected plan.json) --from auditor`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			units, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("work units: %w", err)
			}
			var seed, salt [32]byte
			if seedHex != "" {
				if err := decode32(seedHex, &seed); err != nil {
					return fmt.Errorf("--seed: %w", err)
				}
			} else if _, err := rand.Read(seed[:]); err != nil {
				return err
			}
			if _, err := rand.Read(salt[:]); err != nil {
				return err
			}
			expected, err := audit.MatMulV1{}.Run(cmd.Context(), seed[:], units)
			if err != nil {
				return err
			}
			c := audit.Commitment(salt, expected)
			out, err := json.MarshalIndent(Plan{
				Workload: audit.MatMulV1Name, WorkUnits: units, Seed: hex.EncodeToString(seed[:]), Salt: hex.EncodeToString(salt[:]),
				Expected: hex.EncodeToString(expected[:]), Commitment: hex.EncodeToString(c[:]),
			}, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(out))
			return err
		},
	}
	cmd.Flags().StringVar(&seedHex, "seed", "", "use this 32-byte hex seed instead of a random one")
	return cmd
}

func runCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "run <seed-hex> <work-units>",
		Short: "Compute an audit's result with the CPU reference (what a provider answers)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var seed [32]byte
			if err := decode32(args[0], &seed); err != nil {
				return fmt.Errorf("seed: %w", err)
			}
			units, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil {
				return fmt.Errorf("work units: %w", err)
			}
			res, err := audit.MatMulV1{}.Run(cmd.Context(), seed[:], units)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(res[:]))
			return err
		},
	}
}

func decode32(s string, out *[32]byte) error {
	b, err := hex.DecodeString(s)
	if err != nil {
		return err
	}
	if len(b) != 32 {
		return fmt.Errorf("want 32 bytes, got %d", len(b))
	}
	copy(out[:], b)
	return nil
}
