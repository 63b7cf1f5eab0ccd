// Command idlegpud is the idlegpu chain node and its command-line client.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
)

// gcPercent is the node's default GOGC. A loaded node allocates fast (every
// tx decoded, checked, executed, indexed) and Go's default of 100 collects
// often: at 200 the node committed 1,214 bids/s where it committed 1,008
// (docs/benchmarks.md), for a larger heap. The operator's GOGC (and
// GOMEMLIMIT) win.
const gcPercent = 200

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	rootCmd := cmd.NewRootCmd()
	if err := svrcmd.Execute(rootCmd, "IDLEGPU", app.DefaultNodeHome); err != nil {
		fmt.Fprintln(rootCmd.OutOrStderr(), err)
		os.Exit(1)
	}
}
