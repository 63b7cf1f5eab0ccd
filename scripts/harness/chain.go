package harness

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Chain is a single-validator idlegpud made by scripts/node.sh (alice is
// funded with ugpu and uusdc in its test keyring), with genesis edits.
type Chain struct {
	t       T
	bin     Binaries
	Home    string
	RPC     string
	ChainID string
	ports   []int
	Node    *Proc
}

// GenesisEdits set module params: module → param → value (uint64 params are
// JSON strings, uint32 ones numbers).
type GenesisEdits map[string]map[string]any

// Pass is a GPU the genesis lists as verified for its provider.
type Pass struct{ GPU, Provider string }

// NewChain prepares a home with scripts/node.sh under root, applies the
// edits, starts the node and waits for its first blocks. passes are GPUs
// the genesis lists with an x/settlement audit pass (a network that starts
// with them verified: the load benchmark's thousands of GPUs).
func NewChain(t T, bin Binaries, root string, edits GenesisEdits, passes ...Pass) *Chain {
	t.Helper()
	return NewChainBridged(t, bin, root, edits, nil, passes...)
}

// NewChainBridged is NewChain whose genesis also gives each address in
// bridged that many base units of x/bridge's denom as if credited from the
// vault (minted and booked as deposited, not unbacked): coins its holder
// can withdraw, on a chain with no EVM side.
func NewChainBridged(t T, bin Binaries, root string, edits GenesisEdits, bridged map[string]int64, passes ...Pass) *Chain {
	t.Helper()
	home := t.TempDir()
	ports := FreePorts(t, 5)
	setup := exec.Command(filepath.Join(root, "scripts", "node.sh"))
	// client.toml in the home points at the node's RPC port, as make node's.
	setup.Env = append(os.Environ(), "IDLEGPUD="+bin.Idlegpud, "NODE_HOME="+home, "NODE_SETUP_ONLY=1",
		fmt.Sprintf("NODE_RPC_PORT=%d", ports[0]))
	out, err := setup.CombinedOutput()
	noError(t, err, "node.sh: %s", out)

	editGenesis(t, filepath.Join(home, "config", "genesis.json"), edits)
	if len(bridged) > 0 {
		creditBridged(t, filepath.Join(home, "config", "genesis.json"), bridged)
	}
	if len(passes) > 0 {
		grantPasses(t, filepath.Join(home, "config", "genesis.json"), passes)
	}

	c := &Chain{t: t, bin: bin, Home: home, ChainID: "idlegpu-local", ports: ports}
	c.RPC = fmt.Sprintf("tcp://127.0.0.1:%d", c.ports[0])
	c.Start()
	t.Cleanup(func() {
		c.Node.Stop(t, syscall.SIGTERM)
	})
	c.WaitHeight(3, 90*time.Second)
	return c
}

// editGenesis applies edits to a genesis file. The output is canonical
// (sorted keys), so equal inputs give equal files on every validator.
func editGenesis(t T, path string, edits GenesisEdits) {
	t.Helper()
	raw, err := os.ReadFile(path)
	noError(t, err, "read %s", path)
	var gen map[string]any
	noError(t, decodeJSON(raw, &gen), "decode %s", path)
	app := gen["app_state"].(map[string]any)
	for module, kv := range edits {
		params := app[module].(map[string]any)["params"].(map[string]any)
		for k, v := range kv {
			params[k] = v
		}
	}
	raw, err = json.MarshalIndent(gen, "", "  ")
	noError(t, err, "encode %s", path)
	noError(t, os.WriteFile(path, raw, 0o600), "write %s", path)
}

// creditBridged adds each address's bridged balance to the genesis: a bank
// balance, the denom's supply (when the genesis lists it) and x/bridge's
// totals.deposited, so the bridge's books (supply = unbacked + deposited −
// withdrawn) still hold.
func creditBridged(t T, path string, bridged map[string]int64) {
	t.Helper()
	raw, err := os.ReadFile(path)
	noError(t, err, "read %s", path)
	var gen map[string]any
	noError(t, decodeJSON(raw, &gen), "decode %s", path)
	app := gen["app_state"].(map[string]any)
	bridge := app["bridge"].(map[string]any)
	denom := bridge["params"].(map[string]any)["denom"].(string)
	bank := app["bank"].(map[string]any)
	balances, _ := bank["balances"].([]any)
	var total int64
	for _, addr := range slices.Sorted(maps.Keys(bridged)) {
		amt := bridged[addr]
		total += amt
		balances = append(balances, map[string]any{"address": addr, "coins": []any{map[string]any{"denom": denom, "amount": strconv.FormatInt(amt, 10)}}})
	}
	bank["balances"] = balances
	add := func(m map[string]any, key string) {
		n, err := strconv.ParseInt(fmt.Sprint(m[key]), 10, 64)
		noError(t, err, "genesis %s %v", key, m[key])
		m[key] = strconv.FormatInt(n+total, 10)
	}
	if supply, _ := bank["supply"].([]any); len(supply) > 0 {
		for _, c := range supply {
			if c := c.(map[string]any); c["denom"] == denom {
				add(c, "amount")
			}
		}
	}
	add(bridge["totals"].(map[string]any), "deposited")
	raw, err = json.MarshalIndent(gen, "", "  ")
	noError(t, err, "encode %s", path)
	noError(t, os.WriteFile(path, raw, 0o600), "write %s", path)
}

// grantPasses lists the GPUs in x/settlement's genesis verifications with
// a pass until 2100, sorted as genesis validation requires.
func grantPasses(t T, path string, passes []Pass) {
	t.Helper()
	raw, err := os.ReadFile(path)
	noError(t, err, "read %s", path)
	var gen map[string]any
	noError(t, decodeJSON(raw, &gen), "decode %s", path)
	settlement := gen["app_state"].(map[string]any)["settlement"].(map[string]any)
	sorted := slices.SortedFunc(slices.Values(passes), func(a, b Pass) int { return strings.Compare(a.GPU, b.GPU) })
	list := make([]any, 0, len(sorted))
	for _, p := range slices.CompactFunc(sorted, func(a, b Pass) bool { return a.GPU == b.GPU }) {
		list = append(list, map[string]any{"gpu_uuid": p.GPU, "verified_until": "2100-01-01T00:00:00Z", "misses_in_row": 0, "provider": p.Provider})
	}
	settlement["verifications"] = list
	raw, err = json.MarshalIndent(gen, "", "  ")
	noError(t, err, "encode %s", path)
	noError(t, os.WriteFile(path, raw, 0o600), "write %s", path)
}

// Start (re)starts the node on its ports.
func (c *Chain) Start() {
	c.Node = Start(c.t, c.bin.Idlegpud, "start", "--home", c.Home, "--log_no_color",
		"--rpc.laddr", c.RPC,
		"--p2p.laddr", fmt.Sprintf("tcp://127.0.0.1:%d", c.ports[1]),
		"--grpc.address", fmt.Sprintf("127.0.0.1:%d", c.ports[2]),
		"--api.address", fmt.Sprintf("tcp://127.0.0.1:%d", c.ports[3]),
		"--rpc.pprof_laddr", fmt.Sprintf("127.0.0.1:%d", c.ports[4]))
}

// GRPC is the node's gRPC address (host:port, plaintext).
func (c *Chain) GRPC() string { return fmt.Sprintf("127.0.0.1:%d", c.ports[2]) }

// PprofAddr is where the node serves net/http/pprof.
func (c *Chain) PprofAddr() string { return fmt.Sprintf("127.0.0.1:%d", c.ports[4]) }

// CLI runs idlegpud against the node and returns its output.
func (c *Chain) CLI(args ...string) []byte {
	c.t.Helper()
	args = append(args, "--home", c.Home, "--node", c.RPC)
	out, err := exec.Command(c.bin.Idlegpud, args...).CombinedOutput()
	noError(c.t, err, "idlegpud %s: %s", strings.Join(args, " "), out)
	return out
}

// TryCLI runs idlegpud like CLI and returns its output and error, for a
// command expected to fail until something happens.
func (c *Chain) TryCLI(args ...string) ([]byte, error) {
	args = append(args, "--home", c.Home, "--node", c.RPC)
	return exec.Command(c.bin.Idlegpud, args...).CombinedOutput()
}

// Query runs a query and decodes its JSON.
func (c *Chain) Query(v any, args ...string) {
	c.t.Helper()
	noError(c.t, json.Unmarshal(c.CLI(append(append([]string{"q"}, args...), "-o", "json")...), v), "decode q %s", strings.Join(args, " "))
}

// TryQuery is Query for a node that may be down: it reports failure.
func (c *Chain) TryQuery(v any, args ...string) bool {
	args = append(append(append([]string{"q"}, args...), "-o", "json"), "--home", c.Home, "--node", c.RPC)
	out, err := exec.Command(c.bin.Idlegpud, args...).Output()
	return err == nil && json.Unmarshal(out, v) == nil
}

// TxResult is an included transaction.
type TxResult struct {
	Hash   string
	Height int64
}

// Tx signs with key (alice by default), broadcasts and waits for the tx to
// be in a block, successfully.
func (c *Chain) Tx(from string, args ...string) TxResult {
	c.t.Helper()
	args = append(args, "--from", from, "--gas", "400000", "--fees", "1000ugpu", "--yes", "-o", "json")
	var res struct {
		Code   uint32 `json:"code"`
		TxHash string `json:"txhash"`
		RawLog string `json:"raw_log"`
	}
	noError(c.t, json.Unmarshal(c.CLI(append([]string{"tx"}, args...)...), &res), "decode tx %s", strings.Join(args, " "))
	if res.Code != 0 {
		fail(c.t, "check tx: code %d: %s", res.Code, res.RawLog)
	}
	var inc struct {
		Code   uint32 `json:"code"`
		Height string `json:"height"`
		RawLog string `json:"raw_log"`
	}
	WaitFor(c.t, 30*time.Second, "tx "+res.TxHash, func() bool {
		out, err := exec.Command(c.bin.Idlegpud, "q", "tx", res.TxHash, "-o", "json", "--home", c.Home, "--node", c.RPC).Output()
		return err == nil && json.Unmarshal(out, &inc) == nil
	})
	if inc.Code != 0 {
		fail(c.t, "%s: code %d: %s", strings.Join(args, " "), inc.Code, inc.RawLog)
	}
	h, _ := strconv.ParseInt(inc.Height, 10, 64)
	return TxResult{Hash: res.TxHash, Height: h}
}

// Height is the node's latest height (0 when it does not answer).
func (c *Chain) Height() int64 {
	var st struct {
		SyncInfo struct {
			LatestBlockHeight string `json:"latest_block_height"`
		} `json:"sync_info"`
	}
	out, err := exec.Command(c.bin.Idlegpud, "status", "--home", c.Home, "--node", c.RPC).Output()
	if err != nil || json.Unmarshal(out, &st) != nil {
		return 0
	}
	h, _ := strconv.ParseInt(st.SyncInfo.LatestBlockHeight, 10, 64)
	return h
}

// BlockTime is the time of the block at height h.
func (c *Chain) BlockTime(h int64) time.Time {
	c.t.Helper()
	var b struct {
		Header struct {
			Time time.Time `json:"time"`
		} `json:"header"`
	}
	noError(c.t, json.Unmarshal(c.CLI("q", "block", "--type=height", strconv.FormatInt(h, 10), "-o", "json"), &b), "decode block %d", h)
	return b.Header.Time
}

// WaitHeight waits until the node is at height h.
func (c *Chain) WaitHeight(h int64, timeout time.Duration) {
	c.t.Helper()
	WaitFor(c.t, timeout, fmt.Sprintf("height %d", h), func() bool { return c.Height() >= h })
}

// Address is a key's address in the node's test keyring.
func (c *Chain) Address(key string) string {
	c.t.Helper()
	out, err := exec.Command(c.bin.Idlegpud, "keys", "show", key, "-a", "--keyring-backend", "test", "--home", c.Home).Output()
	noError(c.t, err, "keys show %s", key)
	return strings.TrimSpace(string(out))
}

// Balance is an account's balance in a denom.
func (c *Chain) Balance(addr, denom string) int64 {
	c.t.Helper()
	var b struct {
		Balance struct {
			Amount string `json:"amount"`
		} `json:"balance"`
	}
	c.Query(&b, "bank", "balance", addr, denom)
	n, _ := strconv.ParseInt(b.Balance.Amount, 10, 64)
	return n
}

// Lease is x/auction's lease as the CLI prints it.
type Lease struct {
	ID        string    `json:"id"`
	JobID     string    `json:"job_id"`
	Status    string    `json:"status"`
	Provider  string    `json:"provider"`
	GPUs      []string  `json:"gpu_uuids"`
	Reason    string    `json:"reason"`
	Start     time.Time `json:"start"`
	CreatedAt time.Time `json:"created_at"`
	Price     Coin      `json:"price"`
	Paid      Coin      `json:"paid"`
	Escrow    Coin      `json:"escrow"`
}

// Coin is a coin as the CLI prints it.
type Coin struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// Int is the amount (0 when empty).
func (c Coin) Int() int64 {
	n, _ := strconv.ParseInt(c.Amount, 10, 64)
	return n
}

// Lease reads a lease.
func (c *Chain) Lease(id int) Lease {
	c.t.Helper()
	var l struct {
		Lease Lease `json:"lease"`
	}
	c.Query(&l, "auction", "lease", strconv.Itoa(id))
	return l.Lease
}

// WaitLease waits for a lease to reach a status, across node restarts.
func (c *Chain) WaitLease(id int, status string, timeout time.Duration) Lease {
	c.t.Helper()
	var l struct {
		Lease Lease `json:"lease"`
	}
	WaitFor(c.t, timeout, fmt.Sprintf("lease %d %s", id, status), func() bool {
		return c.TryQuery(&l, "auction", "lease", strconv.Itoa(id)) && l.Lease.Status == status
	})
	return l.Lease
}

// Connect is a Chain for a node started elsewhere (e.g. by `make node`):
// its CLI helpers without Start or Stop.
func Connect(t T, bin Binaries, home, rpc, chainID string) *Chain {
	return &Chain{t: t, bin: bin, Home: home, RPC: rpc, ChainID: chainID}
}
