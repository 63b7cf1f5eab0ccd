package harness

import (
	"fmt"
	"os"
	"sync"
)

// Program is the harness's T for a program (make demo, make bench): a
// failure prints, cleans up (stops the processes, removes the temporary
// homes) and exits 1.
type Program struct {
	name     string
	mu       sync.Mutex
	dir      string
	cleanups []func()
}

// NewProgram keeps its temporary homes under a new directory named after
// the program.
func NewProgram(name string) *Program {
	dir, err := os.MkdirTemp("", "idlegpu-"+name+"-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	return &Program{name: name, dir: dir}
}

func (d *Program) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, d.name+": FAILED: "+format+"\n", args...)
}

func (d *Program) FailNow() {
	d.Close()
	os.Exit(1)
}

func (d *Program) Helper() {}

func (d *Program) Logf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func (d *Program) Cleanup(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cleanups = append(d.cleanups, f)
}

func (d *Program) TempDir() string {
	dir, err := os.MkdirTemp(d.dir, "")
	if err != nil {
		d.Errorf("%v", err)
		d.FailNow()
	}
	return dir
}

// Close runs the cleanups last first, once, then removes the homes.
func (d *Program) Close() {
	d.mu.Lock()
	fs := d.cleanups
	d.cleanups = nil
	d.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
	_ = os.RemoveAll(d.dir)
}
