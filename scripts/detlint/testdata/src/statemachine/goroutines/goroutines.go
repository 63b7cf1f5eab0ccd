// Package goroutines exercises the go-statement rule.
package goroutines

// Fire starts goroutines.
func Fire(f func()) {
	go f()      // want `go statement is non-deterministic in state-machine code`
	go func() { // want `go statement is non-deterministic`
		f()
	}()
}

// Sequential does the same work deterministically.
func Sequential(fs []func()) {
	for _, f := range fs {
		f()
	}
}
