package cli_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/offer/client/cli"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

func TestParseFlags(t *testing.T) {
	lanes, err := cli.ParseLanes("on-demand, PREEMPTIBLE,reserved")
	require.NoError(t, err)
	require.Equal(t, types.AllLanes, lanes)
	_, err = cli.ParseLanes("spot")
	require.ErrorContains(t, err, `unknown lane "spot"`)

	w, err := cli.ParseWorkloads("inference,render")
	require.NoError(t, err)
	require.Equal(t, uint32(types.WORKLOAD_INFERENCE|types.WORKLOAD_RENDER), w)

	ws, err := cli.ParseWindows([]string{"2026-12-01T00:00:00Z/2026-12-01T08:00:00+02:00"})
	require.NoError(t, err)
	require.Equal(t, []types.Window{{
		Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC),
	}}, ws)
	_, err = cli.ParseWindows([]string{"2026-12-01"})
	require.ErrorContains(t, err, "want START/END")

	secs, err := cli.ParseDurationSeconds("72h")
	require.NoError(t, err)
	require.Equal(t, uint64(72*3600), secs)
	_, err = cli.ParseDurationSeconds("1.5s")
	require.Error(t, err)
	_, err = cli.ParseDurationSeconds("-1h")
	require.Error(t, err)
}
