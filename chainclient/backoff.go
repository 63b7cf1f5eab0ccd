package chainclient

import (
	"context"
	"time"

	"github.com/idlegpu/idlegpu/internal/ctxtime"
)

const (
	backoffStart = 250 * time.Millisecond
	backoffMax   = 5 * time.Second
)

// backoff is the wait between tries to reach a node: short first, so a
// blip costs little, doubling up to a cap, so a node that is down for long
// is asked every few seconds and found again soon after it returns.
type backoff struct{ next time.Duration }

// wait sleeps for the current delay, then doubles it; it returns early
// with ctx's error.
func (b *backoff) wait(ctx context.Context) error {
	if b.next == 0 {
		b.next = backoffStart
	}
	d := b.next
	b.next = min(2*b.next, backoffMax)
	return ctxtime.Sleep(ctx, d)
}

// reset starts the next run of failures from the shortest delay.
func (b *backoff) reset() { b.next = 0 }
