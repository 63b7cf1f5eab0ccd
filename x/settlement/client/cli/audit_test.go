package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
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

// TestPlanThenRun: a plan's commitment opens with its salt and expected
// result, and `audit run` (the provider's side) computes that same result.
func TestPlanThenRun(t *testing.T) {
	seed := "0101010101010101010101010101010101010101010101010101010101010101"
	var plan Plan
	require.NoError(t, json.Unmarshal([]byte(execute(t, "plan", "2", "--seed", seed)), &plan))
	require.Equal(t, seed, plan.Seed)
	require.Equal(t, audit.MatMulV1Name, plan.Workload)
	commitment, _ := hex.DecodeString(plan.Commitment)
	salt, _ := hex.DecodeString(plan.Salt)
	expected, _ := hex.DecodeString(plan.Expected)
	require.True(t, types.Opens(commitment, salt, expected))
	require.Equal(t, plan.Expected+"\n", execute(t, "run", seed, "2"))

	var again Plan
	require.NoError(t, json.Unmarshal([]byte(execute(t, "plan", "2", "--seed", seed)), &again))
	require.Equal(t, plan.Expected, again.Expected)
	require.NotEqual(t, plan.Salt, again.Salt, "a fresh salt every time")
}

func TestRunRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{{"run", "abcd", "1"}, {"run", "zz", "1"}, {"run", hex.EncodeToString(make([]byte, 32)), "x"}, {"plan", "-1"}} {
		cmd := AuditCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs(args)
		require.Error(t, cmd.Execute(), "%v", args)
	}
}
