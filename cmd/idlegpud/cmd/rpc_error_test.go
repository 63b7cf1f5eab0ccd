package cmd

import "testing"

// TestRPCErrorOnce: the errors a query or a simulation through the node
// came back with (as the CLI printed them) print with one rpc wrap and
// without the SDK error baseapp appended; other errors are left alone.
func TestRPCErrorOnce(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{
			"rpc error: code = NotFound desc = rpc error: code = NotFound desc = offer 999: offer not found: key not found",
			"rpc error: code = NotFound desc = offer 999: offer not found",
		},
		{
			"reading offer 999: rpc error: code = NotFound desc = rpc error: code = NotFound desc = offer 999: offer not found: key not found",
			"reading offer 999: rpc error: code = NotFound desc = offer 999: offer not found",
		},
		{
			"rpc error: code = InvalidArgument desc = rpc error: code = InvalidArgument desc = invalid denom: xx: invalid request",
			"rpc error: code = InvalidArgument desc = invalid denom: xx",
		},
		{
			"rpc error: code = Unknown desc = rpc error: code = Unknown desc = failed to execute message; message index: 0: lease 999: lease not found with gas used: '49213': unknown request",
			"rpc error: code = Unknown desc = failed to execute message; message index: 0: lease 999: lease not found with gas used: '49213'",
		},
		{
			"rpc error: code = Unauthenticated desc = rpc error: code = Unauthenticated desc = bad key: unauthorized",
			"rpc error: code = Unauthenticated desc = bad key",
		},
		{"rpc error: code = NotFound desc = lease 9: lease not found", "rpc error: code = NotFound desc = lease 9: lease not found"},
		{"lease 999 not found", "lease 999 not found"},
	} {
		if got := rpcErrorOnce(tc.in); got != tc.want {
			t.Errorf("rpcErrorOnce(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestSimulationFailure: a tx whose simulation failed says so, without the
// gas the failed run used; other errors are left alone.
func TestSimulationFailure(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{
			"rpc error: code = Unknown desc = failed to execute message; message index: 0: lease 999: lease not found with gas used: '49213'",
			"the tx fails in simulation, so nothing was sent: failed to execute message; message index: 0: lease 999: lease not found",
		},
		{
			"rpc error: code = NotFound desc = lease 9: lease not found",
			"rpc error: code = NotFound desc = lease 9: lease not found",
		},
		{"with gas used: '1'", "with gas used: '1'"},
	} {
		if got := simulationFailure(tc.in); got != tc.want {
			t.Errorf("simulationFailure(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
