// Command idlegpud is the idlegpu chain node and its command-line client.
package main

import (
	"os"
	"runtime/debug"

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
	os.Exit(cmd.Execute(cmd.NewRootCmd(), os.Args[1:]))
}
