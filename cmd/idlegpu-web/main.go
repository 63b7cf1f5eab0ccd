// Command idlegpu-web serves the idlegpu web app: the market, jobs and
// leases, providers and the network in a browser, a form that posts jobs
// signed by the renter's wallet, and the relayer that submits them. It
// indexes the chain into an embedded SQLite database for the history the
// chain does not keep. See README.md in this folder.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
