// Package ctxtime has the agent's one context-aware sleep.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d, or returns ctx's error as soon as ctx is done (at once if
// it already is, or if d ≤ 0 and it is).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
