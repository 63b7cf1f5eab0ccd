package main

import (
	"fmt"
	"os"
	"sync"
)

// demoT is the harness's T for a program: a failure prints, cleans up
// (stops the processes, removes the temporary homes) and exits 1.
type demoT struct {
	mu       sync.Mutex
	dir      string
	cleanups []func()
}

func newDemoT() *demoT {
	dir, err := os.MkdirTemp("", "idlegpu-demo-")
	if err != nil {
		fatal("%v", err)
	}
	return &demoT{dir: dir}
}

func (d *demoT) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "demo: FAILED: "+format+"\n", args...)
}

func (d *demoT) FailNow() {
	d.cleanup()
	os.Exit(1)
}

func (d *demoT) Helper() {}

func (d *demoT) Logf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func (d *demoT) Cleanup(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cleanups = append(d.cleanups, f)
}

func (d *demoT) TempDir() string {
	dir, err := os.MkdirTemp(d.dir, "")
	if err != nil {
		fatal("%v", err)
	}
	return dir
}

// cleanup runs the cleanups last first, once, then removes the homes.
func (d *demoT) cleanup() {
	d.mu.Lock()
	fs := d.cleanups
	d.cleanups = nil
	d.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
	_ = os.RemoveAll(d.dir)
}
