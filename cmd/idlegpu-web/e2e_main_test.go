package main_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/scripts/harness/harnesstest"
	"github.com/idlegpu/idlegpu/scripts/pgtest"
)

// bins are idlegpud and the agent; web is idlegpu-web; TestMain builds them.
var (
	bins harness.Binaries
	web  string
)

// root is the repository root (scripts/node.sh makes the chain's home).
var root, _ = filepath.Abs("../..")

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the end-to-end test skips: build nothing
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "web-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bins, err = harnesstest.Build(root, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	web = filepath.Join(dir, "idlegpu-web")
	build := exec.Command("go", "build", "-o", web, "./cmd/idlegpu-web")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building idlegpu-web:", err)
		os.Exit(1)
	}
	code := m.Run()
	pgtest.Stop()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
