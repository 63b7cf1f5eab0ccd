package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/endpoint"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// The end-to-end test builds idlegpud, starts a node with scripts/node.sh
// (what `make node` runs) as real processes, and talks to it with the binary.

var idlegpud string // path of the binary built by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "idlegpud-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	idlegpud = filepath.Join(dir, "idlegpud")
	build := exec.Command("go", "build", "-o", idlegpud, ".")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building idlegpud:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// node is the chain `make node` started, driven through the harness.
type node struct {
	*harness.Chain
	t *testing.T
}

func (n node) cli(args ...string) []byte           { n.t.Helper(); return n.CLI(args...) }
func (n node) tx(args ...string)                   { n.t.Helper(); n.Tx("alice", args...) }
func (n node) height() int64                       { return n.Height() }
func (n node) waitHeight(h int64, d time.Duration) { n.t.Helper(); n.WaitHeight(h, d) }

func (n node) blockTime(h int64) time.Time {
	n.t.Helper()
	var b struct {
		Header struct {
			Time time.Time `json:"time"`
		} `json:"header"`
	}
	require.NoError(n.t, json.Unmarshal(n.cli("q", "block", "--type=height", fmt.Sprint(h), "-o", "json"), &b))
	return b.Header.Time
}

func TestMakeNode(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	home := t.TempDir()
	p := harness.FreePorts(t, 6)
	endpointURL := fmt.Sprintf("http://127.0.0.1:%d", p[5]) // the provider's renter endpoint
	rpc := fmt.Sprintf("tcp://127.0.0.1:%d", p[0])

	// alice registers two GPUs by hand below, with no agent to run their
	// audits: the development genesis lists them as audited.
	env := append(os.Environ(), "IDLEGPUD="+idlegpud, "NODE_HOME="+home,
		"NODE_GPU_PASSES=GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ac")
	// The home is prepared first, so the test can vote a proposal in seconds.
	setup := exec.Command(filepath.Join(root, "scripts", "node.sh"))
	setup.Env = append(env, "NODE_SETUP_ONLY=1")
	out, err := setup.CombinedOutput()
	require.NoError(t, err, "node.sh setup: %s", out)
	shortVotingPeriod(t, home)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	script := exec.CommandContext(ctx, filepath.Join(root, "scripts", "node.sh"),
		"--rpc.laddr", rpc,
		"--p2p.laddr", fmt.Sprintf("tcp://127.0.0.1:%d", p[1]),
		"--grpc.address", fmt.Sprintf("127.0.0.1:%d", p[2]),
		"--api.address", fmt.Sprintf("tcp://127.0.0.1:%d", p[3]),
		"--rpc.pprof_laddr", fmt.Sprintf("127.0.0.1:%d", p[4]),
	)
	script.Env = env
	var logs bytes.Buffer
	script.Stdout, script.Stderr = &logs, &logs
	require.NoError(t, script.Start())
	defer func() {
		if t.Failed() {
			t.Logf("node.sh output:\n%s", tail(logs.String(), 60))
		}
	}()

	n := node{Chain: harness.Connect(t, harness.Binaries{Idlegpud: idlegpud}, home, rpc, "idlegpu-local"), t: t}
	n.waitHeight(6, 90*time.Second)

	t.Run("blocks come about every second", func(t *testing.T) {
		interval := n.blockTime(6).Sub(n.blockTime(3)) / 3
		require.Greater(t, interval, 700*time.Millisecond)
		require.Less(t, interval, 2500*time.Millisecond)
	})

	t.Run("every market module answers its params query", func(t *testing.T) {
		for module, want := range map[string]string{
			"provider":   `"min_stake_per_gpu":{"denom":"ugpu","amount":"100000000"}`,
			"offer":      `"payment_denoms":["ugpu","uusdc"]`,
			"auction":    `"clearing_rule":"CLEARING_RULE_SECOND_PRICE"`,
			"settlement": `"epoch_seconds":"600"`,
		} {
			out := n.cli("q", module, "params", "-o", "json")
			require.Contains(t, compact(t, out), want, module)
		}
	})

	t.Run("the funded test key can send", func(t *testing.T) {
		to := "idle1qyqszqgpqyqszqgpqyqszqgpqyqszqgpvl2mga" // bytes 0x01×20
		// An explicit gas: a simulated one prints its estimate on stderr,
		// which n.cli's combined output would mix into the JSON.
		out := n.cli("tx", "bank", "send", "alice", to, "4242ugpu", "--gas", "200000", "--fees", "500ugpu", "--yes", "-o", "json")
		var res struct {
			Code   uint32 `json:"code"`
			TxHash string `json:"txhash"`
		}
		require.NoError(t, json.Unmarshal(out, &res))
		require.Zero(t, res.Code, string(out))
		n.waitHeight(n.height()+2, 30*time.Second)
		require.Contains(t, compact(t, n.cli("q", "bank", "balance", to, "ugpu", "-o", "json")), `"amount":"4242"`)
	})

	t.Run("a provider registers, binds two GPUs, bonds, unbonds and offers a GPU; a job matches it", func(t *testing.T) {
		out, err := exec.Command(idlegpud, "keys", "show", "alice", "-a", "--keyring-backend", "test", "--home", n.Home).Output()
		require.NoError(t, err)
		alice := strings.TrimSpace(string(out))
		inventory := filepath.Join(t.TempDir(), "inventory.json")
		require.NoError(t, os.WriteFile(inventory, []byte(`{"gpus": [
			{"uuid": "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab", "model": "NVIDIA H100 80GB HBM3", "memory_mib": "81559",
			 "pci_bus_id": "00000000:3B:00.0", "driver_version": "550.54.15", "vbios_version": "96.00.89.00.01"},
			{"uuid": "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ac", "model": "NVIDIA H100 80GB HBM3", "memory_mib": "81559",
			 "pci_bus_id": "00000000:3C:00.0", "driver_version": "550.54.15", "vbios_version": "96.00.89.00.01"}]}`), 0o600))

		n.tx("provider", "register-provider", "Alice rack", "eu-de-fra1", endpointURL)
		n.tx("provider", "register-gpus", inventory)
		n.tx("provider", "bond", "200000000ugpu")
		n.tx("provider", "unbond", "50000000ugpu")

		p := compact(t, n.cli("q", "provider", "provider", alice, "-o", "json"))
		require.Contains(t, p, `"status":"PROVIDER_STATUS_ACTIVE"`)
		require.Contains(t, p, `"gpu_count":2`)
		require.Contains(t, p, `"stake":{"denom":"ugpu","amount":"150000000"}`)
		require.Contains(t, p, `"unbonding":{"denom":"ugpu","amount":"50000000"}`)
		gpus := compact(t, n.cli("q", "provider", "gpus", alice, "-o", "json"))
		require.Contains(t, gpus, `"uuid":"GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab"`)
		require.Contains(t, gpus, `"fingerprint":"97f05a3b52b7a39b95bae21f34529fc682bfd96c8aa5f2ce36ca1573e9296426"`)
		unbondings := compact(t, n.cli("q", "provider", "unbondings", alice, "-o", "json"))
		require.Contains(t, unbondings, `"id":"1"`)
		require.Contains(t, unbondings, `"amount":{"denom":"ugpu","amount":"50000000"}`)

		// The bonded provider offers one GPU; a renter's search finds it.
		n.tx("offer", "create-offer", "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab",
			"--price-on-demand", "2000000uusdc", "--price-preemptible", "900000uusdc", "--max-duration", "72h",
			"--window", time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)+"/"+time.Now().UTC().Add(24*time.Hour).Format(time.RFC3339))
		found := compact(t, n.cli("q", "offer", "search", "--model", "NVIDIA H100 80GB HBM3", "-o", "json"))
		require.Contains(t, found, `"id":"1"`)
		require.Contains(t, found, `"provider":"`+alice+`"`)
		require.Contains(t, found, `"price_on_demand":{"denom":"uusdc","amount":"2000000"}`)
		require.Contains(t, found, `"lanes":3`)
		require.Contains(t, found, `"status":"OFFER_STATUS_OPEN"`)

		// Repricing through update-offer keeps the other terms.
		n.tx("offer", "update-offer", "1", "--price-on-demand", "1800000uusdc")
		o := compact(t, n.cli("q", "offer", "offer", "1", "-o", "json"))
		require.Contains(t, o, `"price_on_demand":{"denom":"uusdc","amount":"1800000"}`)
		require.Contains(t, o, `"price_preemptible":{"denom":"uusdc","amount":"900000"}`)
		require.Contains(t, o, `"max_duration_seconds":"259200"`)
		cands := compact(t, n.cli("q", "offer", "candidates", "--lane", "on-demand", "--max-price", "2000000uusdc",
			"--workload", "training", "--gpu-count", "1", "--duration-seconds", "3600", "-o", "json"))
		require.Contains(t, cands, `"offer_id":"1"`)
		require.Contains(t, compact(t, n.cli("q", "offer", "fill-rate", alice, "-o", "json")), `"offered_gpus":1`)
		require.NotContains(t, compact(t, n.cli("q", "offer", "search", "--model", "NVIDIA A100-SXM4-40GB", "-o", "json")), `"id"`)

		// A renter's BRONZE job with no bid window clears against the offer
		// in the block it is posted; the lease shows the clearing price (a
		// single candidate is paid its ask: the preemptible 0.9 USDC).
		manifest := filepath.Join(t.TempDir(), "job.json")
		require.NoError(t, os.WriteFile(manifest, []byte(`{"command":["python","train.py"]}`), 0o600))
		n.tx("auction", "post-job", "--gpus", "1", "--model", "NVIDIA H100 80GB HBM3", "--min-memory", "80GB",
			"--region", "eu", "--tier", "bronze", "--duration", "1h", "--max-price", "1usdc/gpu-h", "--bid-window", "0",
			"--image", "ghcr.io/acme/train@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			"--manifest", manifest, "--workload", "training")
		job := compact(t, n.cli("q", "auction", "job", "1", "-o", "json"))
		require.Contains(t, job, `"status":"JOB_STATUS_MATCHED"`)
		require.Contains(t, job, `"manifest_hash":"`)
		lease := compact(t, n.cli("q", "auction", "lease", "1", "-o", "json"))
		require.Contains(t, lease, `"status":"LEASE_STATUS_PENDING"`)
		require.Contains(t, lease, `"price":{"denom":"uusdc","amount":"900000"}`)
		require.Contains(t, lease, `"escrow":{"denom":"uusdc","amount":"900000"}`)
		require.Contains(t, lease, `"gpu_uuids":["GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab"]`)

		// The renter sends the manifest with `idlegpud lease`: the CLI finds
		// the provider's endpoint on chain and signs with the renter's key;
		// the endpoint checks the signer and the manifest against the lease
		// and job on chain.
		jobs := &recordingJobs{accepted: map[uint64]endpoint.Manifest{}}
		srv := &http.Server{Addr: strings.TrimPrefix(endpointURL, "http://"), Handler: endpoint.NewServer(endpoint.Target{ChainID: n.ChainID, Provider: alice}, chainLeases{n}, jobs,
			slog.New(slog.NewTextHandler(io.Discard, nil))).Handler(), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.ListenAndServe() }()
		defer srv.Close()
		other := filepath.Join(t.TempDir(), "other.json")
		require.NoError(t, os.WriteFile(other, []byte(`{"command":["python","mine.py"]}`), 0o600))
		out, err = exec.Command(idlegpud, "lease", "send-manifest", "1", other, "--from", "alice", "--home", n.Home, "--node", n.RPC).CombinedOutput()
		require.Error(t, err)
		require.Contains(t, string(out), "is not the job's manifest_hash", "a manifest the renter did not commit to is refused")
		require.Empty(t, jobs.accepted)
		require.Contains(t, string(n.cli("lease", "send-manifest", "1", manifest, "--from", "alice")), "manifest accepted for lease 1")
		require.Equal(t, []string{"python", "train.py"}, jobs.accepted[1].Command)
		require.Equal(t, "epoch 0: loss 0.42\n", string(n.cli("lease", "logs", "1", "--from", "alice")))
	})

	t.Run("a paid audit of the idle GPU: the chain's seed and the H100's shape, as `audit plan` says; the GPU held meanwhile", func(t *testing.T) {
		out, err := exec.Command(idlegpud, "keys", "show", "alice", "-a", "--keyring-backend", "test", "--home", n.Home).Output()
		require.NoError(t, err)
		alice := strings.TrimSpace(string(out))
		plan, err := exec.Command(idlegpud, "audit", "plan", "81559", "3350").Output() // offline
		require.NoError(t, err)
		var p struct {
			Shape    struct{ TableItems, Lanes, Segments, SegmentSteps uint32 } `json:"shape"`
			Deadline string                                                     `json:"deadline"`
		}
		require.NoError(t, json.Unmarshal(plan, &p))
		require.Equal(t, "2m30s", p.Deadline)

		gpu := "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ac" // registered, in no offer, audited in genesis
		require.Contains(t, compact(t, n.cli("q", "settlement", "verification", gpu, "-o", "json")), `"verified":true`)
		n.tx("settlement", "request-audit", gpu, "100000uusdc")
		a := compact(t, n.cli("q", "settlement", "audit", "1", "-o", "json"))
		for _, want := range []string{`"status":"AUDIT_STATUS_OPEN"`, `"reason":"AUDIT_REASON_REQUESTED"`, `"workload":"idlegpu/memwalk/v1"`,
			`"fee":{"denom":"uusdc","amount":"100000"}`, `"requester":"` + alice + `"`,
			fmt.Sprintf(`"shape":{"table_items":%d,"lanes":%d,"segments":%d,"segment_steps":%d}`, p.Shape.TableItems, p.Shape.Lanes, p.Shape.Segments, p.Shape.SegmentSteps)} {
			require.Contains(t, a, want)
		}
		// No root yet: no samples to open.
		_, err = exec.Command(idlegpud, "q", "settlement", "audit-samples", "1", "--home", n.Home, "--node", n.RPC).CombinedOutput()
		require.Error(t, err)
		// Held out of the market until its verdict: an offer of it is
		// refused in its block (explicit gas, so no simulation refuses it
		// first), and the command says so: the tx as committed on stdout,
		// the chain's code and log on stderr, exit status 1.
		offer := exec.Command(idlegpud, "tx", "offer", "create-offer", gpu, "--price-on-demand", "2000000uusdc",
			"--from", "alice", "--gas", "400000", "--fees", "1000ugpu", "--yes", "-o", "json", "--home", n.Home, "--node", n.RPC)
		var stderr strings.Builder
		offer.Stderr = &stderr
		stdout, err := offer.Output()
		require.Error(t, err, "exit status")
		var inc struct {
			TxHash string `json:"txhash"`
			Height string `json:"height"`
			Code   uint32 `json:"code"`
			RawLog string `json:"raw_log"`
		}
		require.NoError(t, json.Unmarshal(stdout, &inc), "%s", stdout)
		require.EqualValues(t, 30, inc.Code, inc.RawLog)
		require.Contains(t, inc.RawLog, "gpu held out of the market")
		require.Equal(t, fmt.Sprintf("Error: tx %s failed in block %s with code 30 (offer): %s\n", inc.TxHash, inc.Height, inc.RawLog), stderr.String())
	})

	t.Run("a renter with only an Ethereum key posts and cancels a job by signature; alice relays both for fees", func(t *testing.T) {
		dir := t.TempDir()
		key, err := crypto.GenerateKey()
		require.NoError(t, err)
		keyFile := filepath.Join(dir, "wallet.hex")
		require.NoError(t, os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(key))), 0o600))
		wallet := sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, crypto.PubkeyToAddress(key.PublicKey).Bytes())
		n.tx("bank", "send", "alice", wallet, "10000000uusdc")
		manifest := filepath.Join(dir, "job.json")
		require.NoError(t, os.WriteFile(manifest, []byte(`{"command":["python","eval.py"]}`), 0o600))

		// What sign-* print on stdout is the file to submit (as `> bid.json`).
		stdout := func(args ...string) []byte {
			cmd := exec.Command(idlegpud, append(args, "--home", n.Home, "--node", n.RPC)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "idlegpud %s: %s", strings.Join(args, " "), stderr.String())
			return out
		}
		signed := stdout("tx", "auction", "sign-job", "--eth-key", keyFile, "--chain-id", n.ChainID,
			"--gpus", "1", "--duration", "1h", "--max-price", "1usdc/gpu-h", "--bid-window", "50", "--workload", "training",
			"--image", "ghcr.io/acme/eval@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			"--manifest", manifest, "--max-relayer-fee", "0.05usdc",
			// No provider may serve SILVER here (alice is new, at 90 %): the
			// job is posted to be cancelled, so the market check is skipped.
			"--skip-market-check")
		bidFile := filepath.Join(dir, "bid.json")
		require.NoError(t, os.WriteFile(bidFile, signed, 0o600))
		n.tx("auction", "submit-signed-job", bidFile, "--relayer-fee", "50000uusdc")
		jobs := compact(t, n.cli("q", "auction", "renter-jobs", wallet, "-o", "json"))
		require.Contains(t, jobs, `"renter":"`+wallet+`"`)
		require.Contains(t, jobs, `"status":"JOB_STATUS_OPEN"`)
		// Deposit 1 USDC × 1 GPU × 1 h and the 0.05 USDC fee.
		require.Contains(t, compact(t, n.cli("q", "bank", "balance", wallet, "uusdc", "-o", "json")), `"amount":"8950000"`)
		var list struct {
			Jobs []struct {
				ID string `json:"id"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal([]byte(jobs), &list))
		require.Len(t, list.Jobs, 1)

		cancel := stdout("tx", "auction", "sign-cancel", list.Jobs[0].ID, "--eth-key", keyFile, "--chain-id", n.ChainID,
			"--max-relayer-fee", "20000uusdc")
		cancelFile := filepath.Join(dir, "cancel.json")
		require.NoError(t, os.WriteFile(cancelFile, cancel, 0o600))
		n.tx("auction", "submit-signed", cancelFile, "--relayer-fee", "0.02usdc")
		require.Contains(t, compact(t, n.cli("q", "auction", "job", list.Jobs[0].ID, "-o", "json")), `"status":"JOB_STATUS_CANCELLED"`)
		require.Contains(t, compact(t, n.cli("q", "bank", "balance", wallet, "uusdc", "-o", "json")), `"amount":"9930000"`, "the deposit back, two fees paid")
	})

	t.Run("bad input is refused before it is signed, or by CheckTx, and costs no fee", func(t *testing.T) {
		badInputCostsNothing(t, n, endpointURL)
	})

	t.Run("an offer whose provider can no longer take work prints provider_can_take_work: false", func(t *testing.T) {
		providerCannotTakeWork(t, n)
	})

	// Ctrl-C stops the node and the script cleanly.
	require.NoError(t, script.Process.Signal(syscall.SIGINT))
	require.NoError(t, script.Wait())
}

func compact(t *testing.T, bz []byte) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, bytes.TrimSpace(bz)), string(bz))
	return buf.String()
}

func tail(s string, lines int) string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		out = append(out, sc.Text())
		if len(out) > lines {
			out = out[1:]
		}
	}
	return strings.Join(out, "\n")
}

// chainLeases reads leases from the node with the CLI, as the agent reads
// them from the chain.
type chainLeases struct{ n node }

func (c chainLeases) Lease(_ context.Context, id uint64) (endpoint.Lease, error) {
	out, err := exec.Command(idlegpud, "q", "auction", "lease", fmt.Sprint(id), "-o", "json", "--home", c.n.Home, "--node", c.n.RPC).Output()
	if err != nil {
		return endpoint.Lease{}, err
	}
	var l struct {
		Lease struct {
			Renter string `json:"renter"`
			Status string `json:"status"`
			JobID  string `json:"job_id"`
		} `json:"lease"`
	}
	if err := json.Unmarshal(out, &l); err != nil {
		return endpoint.Lease{}, err
	}
	out, err = exec.Command(idlegpud, "q", "auction", "job", l.Lease.JobID, "-o", "json", "--home", c.n.Home, "--node", c.n.RPC).Output()
	if err != nil {
		return endpoint.Lease{}, err
	}
	var j struct {
		Job struct {
			Spec struct {
				ManifestHash string `json:"manifest_hash"`
			} `json:"spec"`
		} `json:"job"`
	}
	if err := json.Unmarshal(out, &j); err != nil {
		return endpoint.Lease{}, err
	}
	return endpoint.Lease{ID: id, Renter: l.Lease.Renter, ManifestHash: j.Job.Spec.ManifestHash, Status: l.Lease.Status}, nil
}

// recordingJobs is the agent side of the endpoint in this test: it records
// accepted manifests and serves a fixed log.
type recordingJobs struct {
	mu       sync.Mutex
	accepted map[uint64]endpoint.Manifest
}

func (r *recordingJobs) Accept(_ context.Context, l endpoint.Lease, m endpoint.Manifest) (endpoint.Acceptance, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.accepted[l.ID] = m
	return endpoint.Acceptance{}, nil
}

func (r *recordingJobs) Status(_ context.Context, id uint64) (endpoint.JobStatus, error) {
	return endpoint.JobStatus{LeaseID: id}, endpoint.ErrNoJob
}

func (r *recordingJobs) Logs(uint64) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader("epoch 0: loss 0.42\n")), nil
}

func (r *recordingJobs) Samples(uint64, uint64) ([]settlementtypes.Sample, bool) { return nil, false }
