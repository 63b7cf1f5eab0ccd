package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/idlegpu/idlegpu/agent/config"
)

// Agent is an idlegpu-agent home with simulated GPUs and the process
// runner, serving its endpoint over https on loopback.
type Agent struct {
	t        T
	bin      Binaries
	Home     string
	Addr     string // the agent key, which is the provider's operator
	Endpoint string // https://127.0.0.1:port
	Control  string // the sim control file (heat a GPU)
	Run      *Proc
	earlier  []string // output of earlier runs
	runArgs  []string
}

// AgentOptions shape the agent's configuration.
type AgentOptions struct {
	GPUs int
	Seed int64
	// Edit changes the configuration further.
	Edit func(*config.Config)
}

// NewAgent runs `idlegpu-agent init` for the chain and writes the options
// into its configuration.
func NewAgent(t T, c *Chain, bin Binaries, o AgentOptions) *Agent {
	t.Helper()
	home := t.TempDir()
	out, err := exec.Command(bin.Agent, "init", "--home", home, "--keyring-backend", "test", "--gpu-backend", "sim",
		"--runner", "process", "--unsafe-process-runner", "--node", c.RPC, "--chain-id", c.ChainID).CombinedOutput()
	noError(t, err, "init: %s", out)
	cfgPath := filepath.Join(home, "agent.toml")
	cfg, err := config.Load(cfgPath)
	noError(t, err, "load %s", cfgPath)
	p := FreePorts(t, 2)
	a := &Agent{t: t, bin: bin, Home: home, Endpoint: fmt.Sprintf("https://127.0.0.1:%d", p[0]), Control: filepath.Join(home, "sim-control.json")}
	cfg.GPU.SimCount, cfg.GPU.SimSeed, cfg.GPU.SimControl = o.GPUs, o.Seed, a.Control
	cfg.Endpoint.Listen = fmt.Sprintf("127.0.0.1:%d", p[0])
	cfg.Metrics.Listen = fmt.Sprintf("127.0.0.1:%d", p[1])
	if o.Edit != nil {
		o.Edit(&cfg)
	}
	b, err := cfg.Marshal()
	noError(t, err, "marshal the agent configuration")
	noError(t, os.WriteFile(cfgPath, b, 0o600), "write %s", cfgPath)
	out, err = exec.Command(bin.Idlegpud, "keys", "show", "agent", "-a", "--keyring-backend", "test", "--keyring-dir", home).Output()
	noError(t, err, "keys show agent")
	a.Addr = strings.TrimSpace(string(out))
	t.Cleanup(a.cleanup)
	return a
}

// Stop ends the daemon and the jobs it started (as the cleanup does).
func (a *Agent) Stop() { a.cleanup() }

func (a *Agent) cleanup() {
	if a.Run != nil {
		a.Run.Stop(a.t, syscall.SIGTERM)
	}
	// Jobs outlive the agent by design: end this agent's, by the process
	// groups the process runner recorded.
	files, _ := filepath.Glob(filepath.Join(a.Home, "jobs", "lease-*", "pgid"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			if pgid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pgid > 1 {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}
	}
}

// CLI runs idlegpu-agent on this home and returns its output.
func (a *Agent) CLI(args ...string) []byte {
	a.t.Helper()
	out, err := exec.Command(a.bin.Agent, append(args, "--home", a.Home)...).CombinedOutput()
	noError(a.t, err, "idlegpu-agent %s: %s", strings.Join(args, " "), out)
	return out
}

// Start runs the daemon (`idlegpu-agent run` plus args).
func (a *Agent) Start(args ...string) {
	a.runArgs = args
	a.Run = Start(a.t, a.bin.Agent, append([]string{"run", "--home", a.Home}, args...)...)
}

// Output is every run's output so far.
func (a *Agent) Output() string {
	s := strings.Join(a.earlier, "")
	if a.Run != nil {
		s += a.Run.Output()
	}
	return s
}

// Restart ends the daemon with sig and starts it again.
func (a *Agent) Restart(sig syscall.Signal) {
	a.Run.Stop(a.t, sig)
	a.earlier = append(a.earlier, a.Run.Output())
	a.Start(a.runArgs...)
}
