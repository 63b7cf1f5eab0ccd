// Command idlegpu-gateway gives a renter's deployment (its model served on
// several leases) one stable address near its users, routing each request
// to a healthy lease by measured latency, with failover. See the gateway
// package and README.md in this folder.
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
