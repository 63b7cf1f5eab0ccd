package gpu

import (
	"context"
	"fmt"
	"time"
)

// MemoryFreeCheck returns the check the docker runner makes after a job's
// container is removed (runner.DockerOptions.GPUMemoryFree): every GPU
// reads zero memory used, retried every poll for up to wait while the driver
// frees what the job held. It fails naming the GPUs still holding memory, so
// the cleanup is reported and retried rather than the GPUs passed on with a
// job's data in them.
func MemoryFreeCheck(b Backend, wait, poll time.Duration) func(ctx context.Context, uuids []string) error {
	return func(ctx context.Context, uuids []string) error {
		deadline := time.Now().Add(wait)
		for {
			var busy []string
			for _, u := range uuids {
				r, err := b.Read(ctx, u)
				if err != nil {
					return fmt.Errorf("read GPU %s: %w", u, err)
				}
				if r.MemUsedMiB > 0 {
					busy = append(busy, fmt.Sprintf("%s (%d MiB)", u, r.MemUsedMiB))
				}
			}
			if len(busy) == 0 {
				return nil
			}
			if !time.Now().Before(deadline) {
				return fmt.Errorf("GPU memory still in use after the job: %v", busy)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(poll):
			}
		}
	}
}
