package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Localnet is scripts/localnet.sh's validators (four unless NewLocalnetOf
// says otherwise) on free loopback ports.
type Localnet struct {
	t     T
	bin   Binaries
	root  string
	Dir   string
	ports []int
	// Nodes talk to each validator; Nodes[0]'s home holds alice.
	Nodes []*Chain
}

const localnetChainID = "idlegpu-localnet"

// NewLocalnet makes the homes, applies the genesis edits to every
// validator's copy, starts all four and waits for blocks.
func NewLocalnet(t T, bin Binaries, root string, edits GenesisEdits) *Localnet {
	t.Helper()
	return NewLocalnetOf(t, bin, root, 4, edits)
}

// NewLocalnetOf is NewLocalnet with n validators of equal stake; passes
// are GPUs every validator's genesis lists as verified (as NewChain's).
func NewLocalnetOf(t T, bin Binaries, root string, n int, edits GenesisEdits, passes ...Pass) *Localnet {
	t.Helper()
	l := &Localnet{t: t, bin: bin, root: root, Dir: t.TempDir(), ports: FreePorts(t, 5*n)}
	l.script("init")
	for i := range n {
		home := filepath.Join(l.Dir, fmt.Sprintf("node%d", i))
		editGenesis(t, filepath.Join(home, "config", "genesis.json"), edits)
		if len(passes) > 0 {
			grantPasses(t, filepath.Join(home, "config", "genesis.json"), passes)
		}
		l.Nodes = append(l.Nodes, Connect(t, bin, home, fmt.Sprintf("tcp://127.0.0.1:%d", l.ports[i*5+1]), localnetChainID))
	}
	l.script("start")
	t.Cleanup(func() {
		l.script("stop")
		if f, ok := t.(interface{ Failed() bool }); ok && f.Failed() {
			for i := range l.Nodes {
				b, _ := os.ReadFile(filepath.Join(l.Dir, fmt.Sprintf("node%d.log", i)))
				t.Logf("validator %d log (tail):\n%s", i, Tail(string(b), 15))
			}
		}
	})
	l.Nodes[0].WaitHeight(3, 90*time.Second)
	return l
}

func (l *Localnet) script(args ...string) {
	l.t.Helper()
	cmd := exec.Command(filepath.Join(l.root, "scripts", "localnet.sh"), args...)
	ports := make([]string, len(l.ports))
	for i, p := range l.ports {
		ports[i] = strconv.Itoa(p)
	}
	cmd.Env = append(os.Environ(), "IDLEGPUD="+l.bin.Idlegpud, "LOCALNET_DIR="+l.Dir,
		"LOCALNET_PORTS="+strings.Join(ports, " "), "CHAIN_ID="+localnetChainID,
		"LOCALNET_VALIDATORS="+strconv.Itoa(len(l.ports)/5))
	out, err := cmd.CombinedOutput()
	noError(l.t, err, "localnet.sh %s: %s", strings.Join(args, " "), out)
}

// Kill sends SIGKILL to validator i.
func (l *Localnet) Kill(i int) { l.script("kill-node", strconv.Itoa(i), "KILL") }

// Stop stops validator i (SIGTERM, waits).
func (l *Localnet) Stop(i int) { l.script("kill-node", strconv.Itoa(i), "TERM") }

// StartNode starts validator i again.
func (l *Localnet) StartNode(i int) { l.script("start-node", strconv.Itoa(i)) }

// Pid is validator i's process id (the pid file localnet.sh writes).
func (l *Localnet) Pid(i int) int {
	l.t.Helper()
	b, err := os.ReadFile(filepath.Join(l.Dir, fmt.Sprintf("node%d.pid", i)))
	noError(l.t, err, "validator %d's pid file", i)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	noError(l.t, err, "validator %d's pid file", i)
	return pid
}

// PprofAddr is where validator i serves net/http/pprof.
func (l *Localnet) PprofAddr(i int) string { return fmt.Sprintf("127.0.0.1:%d", l.ports[i*5+4]) }

// AppHash is the app hash validator i reports in the header at height h
// (the state after block h-1).
func (l *Localnet) AppHash(i int, h int64) string {
	l.t.Helper()
	var b struct {
		Header struct {
			AppHash string `json:"app_hash"`
		} `json:"header"`
	}
	noError(l.t, json.Unmarshal(l.Nodes[i].CLI("q", "block", "--type=height", strconv.FormatInt(h, 10), "-o", "json"), &b), "decode block %d", h)
	return b.Header.AppHash
}
