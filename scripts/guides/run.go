package guides

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Run runs a journey's blocks as one bash script (Script) in dir, with env
// added to this process's environment, and returns its combined output.
// The guides start programs in the background (an agent, a node, a bridge
// orchestrator) that the caller goes on checking after the script ends, so
// the script runs in a process group of its own: stop ends it, background
// programs included. A failure names the block it stopped in.
func Run(ctx context.Context, blocks []Block, dir string, env []string) (out string, stop func(), err error) {
	tmp, err := os.MkdirTemp("", "guide-journey")
	if err != nil {
		return "", func() {}, err
	}
	script := filepath.Join(tmp, "journey.sh")
	if err := os.WriteFile(script, []byte(Script(blocks)), 0o600); err != nil {
		_ = os.RemoveAll(tmp)
		return "", func() {}, err
	}
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stop = func() {
		if cmd.Process != nil {
			endGroup(cmd.Process.Pid)
		}
		_ = os.RemoveAll(tmp)
	}
	b, err := cmd.CombinedOutput()
	if err != nil {
		return string(b), stop, fmt.Errorf("the guide's block at %s failed: %w", FailedBlock(string(b)), err)
	}
	return string(b), stop, nil
}

// endGroup stops process group pgid: SIGTERM, then up to 15 s for its
// programs to exit (a node closes its databases), then SIGKILL. It returns
// when none is left (or at the deadline), so the caller may remove the
// directories they wrote in.
func endGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
