// Command idlegpu-agent is the provider agent: it reads the GPUs, bids,
// runs leased jobs and proves every epoch to the idlegpu chain.
package main

import (
	"fmt"
	"os"

	"github.com/idlegpu/idlegpu/cmd/idlegpu-agent/cmd"
)

func main() {
	if err := cmd.NewRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
