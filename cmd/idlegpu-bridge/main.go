// Command idlegpu-bridge links the idlegpu chain to its EVM settlement
// vault: validators register their EVM signers and run an orchestrator that
// attests deposits and signs valsets and payout roots; anyone may run a
// relayer that carries the signed valsets and roots to the vault, and claim
// a provider's payout. The commands and everything they do live in package
// bridge; this is only the process around them.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/idlegpu/idlegpu/bridge"
)

func main() {
	// Daemons stop between rounds on SIGINT/SIGTERM; every round reads its
	// state from the two chains, so stopping anywhere is safe.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := bridge.NewRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
