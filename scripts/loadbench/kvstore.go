package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

// kvstoreNode starts `cometbft node --proxy_app=kvstore` in a fresh home
// with the consensus settings idlegpud's init writes (the pause after a
// block is what sets the block rate), and returns its RPC address.
func kvstoreNode(t *harness.Program, bin, idlegpudHome string) (string, error) {
	home := t.TempDir()
	if out, err := exec.Command(bin, "init", "--home", home).CombinedOutput(); err != nil {
		return "", fmt.Errorf("cometbft init: %v: %s", err, out)
	}
	// The same [consensus] timeouts as the idlegpud node measured.
	ours, err := os.ReadFile(filepath.Join(idlegpudHome, "config", "config.toml"))
	if err != nil {
		return "", err
	}
	cfgPath := filepath.Join(home, "config", "config.toml")
	theirs, err := os.ReadFile(cfgPath)
	if err != nil {
		return "", err
	}
	timeout := regexp.MustCompile(`(?m)^(timeout_\w+|create_empty_blocks\w*) = .*$`)
	want := map[string]string{}
	for _, line := range timeout.FindAllString(string(ours), -1) {
		want[strings.SplitN(line, " ", 2)[0]] = line
	}
	cfg := timeout.ReplaceAllStringFunc(string(theirs), func(line string) string {
		if w, ok := want[strings.SplitN(line, " ", 2)[0]]; ok {
			return w
		}
		return line
	})
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return "", err
	}
	ports := harness.FreePorts(t, 2)
	rpc := fmt.Sprintf("tcp://127.0.0.1:%d", ports[0])
	p := harness.Start(t, bin, "node", "--home", home, "--proxy_app=kvstore", "--log_level", "info",
		"--rpc.laddr", rpc, "--p2p.laddr", fmt.Sprintf("tcp://127.0.0.1:%d", ports[1]))
	t.Cleanup(func() { p.Stop(t, syscall.SIGTERM) })
	return rpc, nil
}

// kvSource writes unique key=value pairs padded to the size of the chain's
// bid txs, in as many lanes as the chain has senders.
type kvSource struct {
	run   string
	lanes int
	size  int
	k     int
}

func (s *kvSource) Step(_ context.Context, n int) ([][]Tx, error) {
	per := (n + s.lanes - 1) / s.lanes
	lanes := make([][]Tx, s.lanes)
	for i := range lanes {
		for t := range per {
			kv := fmt.Sprintf("bench-%s-%03d-%09d=", s.run, i, s.k+t)
			if pad := s.size - len(kv); pad > 0 {
				kv += strings.Repeat("x", pad)
			}
			lanes[i] = append(lanes[i], Tx{Bytes: []byte(kv), Units: 1})
		}
	}
	s.k += per
	return lanes, nil
}

func (s *kvSource) After(context.Context, StepResult) error { return nil }
