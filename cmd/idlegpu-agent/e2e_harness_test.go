package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
)

// The binaries under test, built by TestMain.
var idlegpud, agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	idlegpud, agentBin = filepath.Join(dir, "idlegpud"), filepath.Join(dir, "idlegpu-agent")
	for bin, pkg := range map[string]string{idlegpud: "../idlegpud", agentBin: "."} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", pkg, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// freePorts returns n ports free on loopback right now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// proc is a started binary whose output is kept for the failure report.
type proc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func start(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	require.NoError(t, p.cmd.Start())
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p
}

// stop sends sig and waits for the process to end.
func (p *proc) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("%s did not stop in 30s", p.cmd.Path)
	}
}

// chain is a single-validator idlegpud with short epochs.
type chain struct {
	t     *testing.T
	home  string
	rpc   string
	ports []int
	node  *proc
}

// genesisEdits shorten the chain's clocks for a test: 20 s epochs, 1 s
// samples, 70 % of the samples needed (an agent restart costs a few).
var genesisEdits = map[string]map[string]any{
	"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
}

func newChain(t *testing.T) *chain {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	home := t.TempDir()
	setup := exec.Command(filepath.Join(root, "scripts", "node.sh"))
	setup.Env = append(os.Environ(), "IDLEGPUD="+idlegpud, "NODE_HOME="+home, "NODE_SETUP_ONLY=1")
	out, err := setup.CombinedOutput()
	require.NoError(t, err, "node.sh: %s", out)

	path := filepath.Join(home, "config", "genesis.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var gen map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep every number as written
	require.NoError(t, dec.Decode(&gen))
	app := gen["app_state"].(map[string]any)
	for module, kv := range genesisEdits {
		params := app[module].(map[string]any)["params"].(map[string]any)
		for k, v := range kv {
			params[k] = v
		}
	}
	raw, err = json.MarshalIndent(gen, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw, 0o600))

	c := &chain{t: t, home: home, ports: freePorts(t, 5)}
	c.rpc = fmt.Sprintf("tcp://127.0.0.1:%d", c.ports[0])
	c.start()
	t.Cleanup(func() {
		if c.node != nil {
			c.node.stop(t, syscall.SIGTERM)
		}
		if t.Failed() {
			t.Logf("node output (tail):\n%s", tail(c.node.output(), 30))
		}
	})
	c.waitHeight(3, 90*time.Second)
	return c
}

func (c *chain) start() {
	c.node = start(c.t, idlegpud, "start", "--home", c.home, "--log_no_color",
		"--rpc.laddr", c.rpc,
		"--p2p.laddr", fmt.Sprintf("tcp://127.0.0.1:%d", c.ports[1]),
		"--grpc.address", fmt.Sprintf("127.0.0.1:%d", c.ports[2]),
		"--api.address", fmt.Sprintf("tcp://127.0.0.1:%d", c.ports[3]),
		"--rpc.pprof_laddr", fmt.Sprintf("127.0.0.1:%d", c.ports[4]))
}

func (c *chain) cli(args ...string) []byte {
	c.t.Helper()
	args = append(args, "--home", c.home, "--node", c.rpc)
	out, err := exec.Command(idlegpud, args...).CombinedOutput()
	require.NoError(c.t, err, "idlegpud %s: %s", strings.Join(args, " "), out)
	return out
}

// query runs a query and decodes its JSON.
func (c *chain) query(v any, args ...string) {
	c.t.Helper()
	require.NoError(c.t, json.Unmarshal(c.cli(append(append([]string{"q"}, args...), "-o", "json")...), v))
}

// tx signs as alice and waits for the tx to be in a block, successfully.
func (c *chain) tx(args ...string) {
	c.t.Helper()
	args = append(args, "--from", "alice", "--gas", "400000", "--fees", "1000ugpu", "--yes", "-o", "json")
	var res struct {
		Code   uint32 `json:"code"`
		TxHash string `json:"txhash"`
		RawLog string `json:"raw_log"`
	}
	require.NoError(c.t, json.Unmarshal(c.cli(append([]string{"tx"}, args...)...), &res))
	require.Zero(c.t, res.Code, "check tx: %s", res.RawLog)
	waitFor(c.t, 30*time.Second, "tx "+res.TxHash, func() bool {
		out, err := exec.Command(idlegpud, "q", "tx", res.TxHash, "-o", "json", "--home", c.home, "--node", c.rpc).Output()
		if err != nil {
			return false
		}
		var inc struct {
			Code   uint32 `json:"code"`
			RawLog string `json:"raw_log"`
		}
		require.NoError(c.t, json.Unmarshal(out, &inc))
		require.Zero(c.t, inc.Code, "%s: %s", strings.Join(args, " "), inc.RawLog)
		return true
	})
}

func (c *chain) height() int64 {
	var st struct {
		SyncInfo struct {
			LatestBlockHeight string `json:"latest_block_height"`
		} `json:"sync_info"`
	}
	out, err := exec.Command(idlegpud, "status", "--home", c.home, "--node", c.rpc).Output()
	if err != nil || json.Unmarshal(out, &st) != nil {
		return 0
	}
	var h int64
	_, _ = fmt.Sscan(st.SyncInfo.LatestBlockHeight, &h)
	return h
}

func (c *chain) waitHeight(h int64, timeout time.Duration) {
	c.t.Helper()
	waitFor(c.t, timeout, fmt.Sprintf("height %d", h), func() bool { return c.height() >= h })
}

func (c *chain) address(key string) string {
	c.t.Helper()
	out, err := exec.Command(idlegpud, "keys", "show", key, "-a", "--keyring-backend", "test", "--home", c.home).Output()
	require.NoError(c.t, err)
	return strings.TrimSpace(string(out))
}

// waitFor polls cond every 300 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "waited %s for %s", timeout, what)
		time.Sleep(300 * time.Millisecond)
	}
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// agent is an idlegpu-agent home with simulated GPUs and the process runner.
type agent struct {
	t        *testing.T
	home     string
	addr     string
	endpoint string
	control  string // the sim control file
	run      *proc
	logs     []string // output of earlier runs
}

func newAgent(t *testing.T, c *chain, gpus int) *agent {
	t.Helper()
	home := t.TempDir()
	out, err := exec.Command(agentBin, "init", "--home", home, "--keyring-backend", "test", "--gpu-backend", "sim",
		"--runner", "process", "--node", c.rpc, "--chain-id", "idlegpu-local").CombinedOutput()
	require.NoError(t, err, "init: %s", out)
	cfgPath := filepath.Join(home, "agent.toml")
	cfg, err := config.Load(cfgPath)
	require.NoError(t, err)
	p := freePorts(t, 2)
	a := &agent{t: t, home: home, endpoint: fmt.Sprintf("https://127.0.0.1:%d", p[0]), control: filepath.Join(home, "sim-control.json")}
	cfg.GPU.SimCount, cfg.GPU.SimSeed, cfg.GPU.SimControl = gpus, 7, a.control
	cfg.Endpoint.Listen = fmt.Sprintf("127.0.0.1:%d", p[0])
	cfg.Metrics.Listen = fmt.Sprintf("127.0.0.1:%d", p[1])
	cfg.Policy.PreemptAfter = 3
	cfg.Policy.Workloads = []string{"training", "inference", "batch"}
	cfg.Rewards.ClaimEvery = "5s"
	b, err := cfg.Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfgPath, b, 0o600))
	a.addr = strings.TrimSpace(string(must(exec.Command(idlegpud, "keys", "show", "agent", "-a", "--keyring-backend", "test", "--keyring-dir", home).Output())))
	t.Cleanup(func() {
		if a.run != nil {
			a.run.stop(t, syscall.SIGTERM)
		}
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", tail(a.output(), 60))
		}
		// Jobs outlive the agent by design: end the test's own, by the
		// process groups the process runner recorded.
		files, _ := filepath.Glob(filepath.Join(home, "jobs", "lease-*", "pgid"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				if pgid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pgid > 1 {
					_ = syscall.Kill(-pgid, syscall.SIGKILL)
				}
			}
		}
	})
	return a
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func (a *agent) cli(args ...string) []byte {
	a.t.Helper()
	out, err := exec.Command(agentBin, append(args, "--home", a.home)...).CombinedOutput()
	require.NoError(a.t, err, "idlegpu-agent %s: %s", strings.Join(args, " "), out)
	return out
}

func (a *agent) start() { a.run = start(a.t, agentBin, "run", "--home", a.home) }

// output is every run's output so far.
func (a *agent) output() string {
	s := strings.Join(a.logs, "")
	if a.run != nil {
		s += a.run.output()
	}
	return s
}

// restart ends the agent with sig and starts it again.
func (a *agent) restart(sig syscall.Signal) {
	a.run.stop(a.t, sig)
	a.logs = append(a.logs, a.run.output())
	a.start()
}
