// Package harnesstest is what only the end-to-end tests need of the process
// harness: compiling the binaries under test from the working tree. The
// programs (make demo, make bench) run binaries `make build` made and do not
// import it.
package harnesstest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

// Build compiles both binaries into dir from the module at root.
func Build(root, dir string) (harness.Binaries, error) {
	b := harness.Binaries{Idlegpud: filepath.Join(dir, "idlegpud"), Agent: filepath.Join(dir, "idlegpu-agent")}
	for bin, pkg := range map[string]string{b.Idlegpud: "./cmd/idlegpud", b.Agent: "./cmd/idlegpu-agent"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Dir = root
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return b, fmt.Errorf("building %s: %w", pkg, err)
		}
	}
	return b, nil
}
