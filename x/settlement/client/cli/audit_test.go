package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func execute(t *testing.T, args ...string) string {
	t.Helper()
	cmd := AuditCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs(args)
	require.NoError(t, cmd.ExecuteContext(context.Background()))
	return out.String()
}

// TestPlanIsTheChainsPlan: `audit plan` prints what the chain derives for a
// board (types.Params.AuditPlan), here an H100's and the simulated GPU's.
func TestPlanIsTheChainsPlan(t *testing.T) {
	for _, m := range []types.GPUModel{
		{Model: "board", MemoryMib: 81559, MemoryBandwidthGbps: 3350},
		{Model: "board", MemoryMib: 2, MemoryBandwidthGbps: 1},
	} {
		var plan Plan
		require.NoError(t, json.Unmarshal([]byte(execute(t, "plan", itoa(m.MemoryMib), itoa(m.MemoryBandwidthGbps))), &plan))
		want, err := types.DefaultParams().AuditPlan(m)
		require.NoError(t, err)
		require.Equal(t, want.Shape, plan.Shape)
		require.Equal(t, want.Expected.String(), plan.Expected)
		require.Equal(t, want.Allowance.String(), plan.Deadline)
		require.Equal(t, want.Shape.Reads(), plan.Reads)
	}
}

// TestRootIsTheTranscriptsRoot: `audit root` prints the root of the CPU
// reference's transcript.
func TestRootIsTheTranscriptsRoot(t *testing.T) {
	seed := strings.Repeat("01", 32)
	s := audit.Shape{TableItems: audit.CacheItems, Lanes: 4, Segments: 2, SegmentSteps: 3}
	b, _ := hex.DecodeString(seed)
	states, err := audit.Run(context.Background(), b, s)
	require.NoError(t, err)
	out := execute(t, "root", seed, itoa(uint64(s.TableItems)), "4", "2", "3")
	require.True(t, strings.HasPrefix(out, hex.EncodeToString(types.NewAuditTranscript(states).Root())+"\t"), out)
}

func TestAuditCmdRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"root", "abcd", "16384", "4", "2", "3"}, {"root", strings.Repeat("00", 32), "10", "4", "2", "3"},
		{"root", strings.Repeat("00", 32), "16384", "3", "2", "3"}, {"plan", "-1", "10"}, {"plan", "81559", "0"},
	} {
		cmd := AuditCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs(args)
		cmd.SetContext(context.Background())
		require.Error(t, cmd.Execute(), "%v", args)
	}
}

func itoa(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
