package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/scripts/harness/harnesstest"
)

// bins are the binaries under test, built by TestMain.
var bins harness.Binaries

// root is the repository root (scripts/node.sh makes the chain's home).
var root, _ = filepath.Abs("../..")

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bins, err = harnesstest.Build(root, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
