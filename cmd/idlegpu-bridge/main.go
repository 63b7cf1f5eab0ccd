// Command idlegpu-bridge links the idlegpu chain to its EVM settlement
// vault: validators register their EVM signers and run an orchestrator that
// attests deposits and signs valsets and payout roots; anyone may run a
// relayer that carries the signed valsets and roots to the vault, and claim
// a provider's payout.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// Daemons stop between rounds on SIGINT/SIGTERM; every round reads its
	// state from the two chains, so stopping anywhere is safe.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
