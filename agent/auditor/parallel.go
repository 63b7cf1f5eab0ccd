package auditor

import (
	"runtime"
	"sync"
)

// parallelChunk is the least work one goroutine takes: below it, starting
// goroutines costs more than the hashes they would share.
const parallelChunk = 4096

// parallel runs f(0), …, f(n−1) on all CPUs, in contiguous chunks: the
// Parallel a transcript's tree is hashed with (settlementtypes.
// NewAuditTranscriptWith). The chain hashes nothing of the sort, so its
// version is sequential; a board's tree is 2^27 hashes, seconds on all
// cores instead of a minute on one, inside the answer deadline.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/parallelChunk))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				f(i)
			}
		}()
	}
	wg.Wait()
}
