package main_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/browsertest"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/scripts/pgtest"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

const (
	model = "NVIDIA H100 80GB HBM3"
	image = "registry.example/idlegpu/web-e2e@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	// manifest is one line: a textarea sends it byte for byte, so its
	// sha256 in the bid is the one the agent checks.
	manifest = `{"command":["sh","-c","echo web job on $CUDA_VISIBLE_DEVICES; while :; do sleep 1; done"]}`
	// evmChainID is x/bridge's default evm_chain_id: the wallet's chain.
	evmChainID = 1337
	relayerFee = 50_000
)

// TestWebAppEndToEnd: a real idlegpud, the real agent offering one
// simulated H100, and idlegpu-web serving and indexing them, driven in
// headless Chromium. The market shows the agent's offer and price; a renter
// whose only key is an Ethereum key (an injected EIP-1193 wallet signing in
// Go) posts a job from the form, seeing the escrow first; the relayer
// submits it and earns its fee; the job's lease and its proven epochs appear
// with exact amounts; the provider page shows the earnings; the renter
// withdraws part of its unspent balance to its own EVM address by
// signature. On the way it filters the asks, and the post page shows which
// offer the job would clear on and at what cost before anything is signed;
// when the node stops, /healthz fails and the pages say so, serving the
// lease from the index. Every page is screenshotted into build/screenshots
// and any console error fails the test.
func TestWebAppEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain, the agent, the web app and Chromium (minutes)")
	}
	b := browsertest.Start(t)
	// The renter: an Ethereum key, its account the address's 20 bytes,
	// holding 10 USDC bridged in from the vault (the genesis books them as
	// deposited, so they can be withdrawn again).
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	wallet := &browsertest.Wallet{Key: key, ChainID: evmChainID}
	renter := sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, wallet.Address().Bytes())
	c := harness.NewChainBridged(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	}, map[string]int64{renter: 10_000_000})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 21, Edit: func(cfg *config.Config) { cfg.Rewards.ClaimEvery = "5s" }})
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", "web e2e")
	a.Start()

	require.EqualValues(t, 10_000_000, c.Balance(renter, "uusdc"))
	relayer := c.Address("validator")
	relayerBefore := c.Balance(relayer, "uusdc")

	port := harness.FreePorts(t, 1)[0]
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	app := harness.Start(t, web, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--node", c.RPC, "--grpc", c.GRPC(), "--chain-id", c.ChainID, "--db", filepath.Join(t.TempDir(), "index.db"),
		"--relayer-key", "validator", "--keyring-dir", c.Home, "--keyring-backend", "test", "--relayer-fee", fmt.Sprint(relayerFee))
	defer func() {
		if t.Failed() {
			t.Logf("web output (tail):\n%s", harness.Tail(app.Output(), 40))
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 40))
		}
	}()
	harness.WaitFor(t, 60*time.Second, "the web app", func() bool {
		res, err := http.Get(url + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})

	p := b.NewPage(t, wallet)
	p.Timeout = 60 * time.Second

	// Market: the agent's offer, its preemptible floor, its free GPU.
	waitPage(t, p, url+"/", "#asks", "0.90 USDC/GPU-h")
	require.Contains(t, p.Text("#asks"), model)
	require.Contains(t, p.Text("#capacity-model"), model)
	p.Screenshot("market")

	// The asks a renter chooses from. Filtered on a reliability above a new
	// provider's 90 %, none is left; for 2 GPUs × 3 h the agent's ask shows
	// its provider's name and that its offer has one GPU free.
	p.SetValue("#asks-filter input[name=a_min_rel]", "95%")
	p.Submit("#asks-filter")
	p.WaitText("#asks", "No ask matches.")
	p.Navigate(url + "/?a_region=eu&a_gpus=2&a_hours=3#asks")
	p.WaitText("#asks", "only 1 free")
	require.Contains(t, p.Text("#asks"), "web e2e")
	require.Contains(t, p.Text("#asks"), "90 %")
	p.Screenshot("market-asks")

	// Post a job: the form in human units; the preview shows the escrow
	// before anything is signed (1 GPU × 40 s at most 1 USDC/GPU-h:
	// ceil(1,000,000 × 40 / 3600) = 11,112 uusdc).
	p.Navigate(url + "/post")
	p.WaitVisible("#sign-job")
	fill := map[string]string{
		"#gpus": "1", "#min_memory": "80GB", "#region": "eu", "#duration": "40s", "#max_price": "1usdc/gpu-h",
		"#image": image, "#manifest": manifest, "#bid_window": "0", "#max_relayer_fee": "0.05",
	}
	for sel, v := range fill {
		p.SetValue(sel, v)
	}
	p.SetValue("#model", model)
	p.SetValue("#tier", "bronze")
	p.SetValue("#workload", "training")
	p.Click("#preview")
	p.WaitText("#escrow-preview", "locks 0.011112 USDC in escrow")
	require.Contains(t, p.Text("#escrow-preview"), "0.061112 USDC in all")
	// What it would meet, before signing: the agent's offer, clearing at
	// 0.90 USDC/GPU-h, floor(900,000 × 40 / 3600) = 10,000 uusdc for the
	// whole duration, so 1,112 of the 11,112 escrowed would come back.
	p.WaitText("#clearing-verdict", "It would clear at 0.90 USDC/GPU-h: 0.01 USDC if it runs its whole duration, so 0.001112 USDC of the escrow comes back.")
	require.Contains(t, p.Text("#clearing-winners"), "web e2e")
	p.Screenshot("post-preview")

	// Sign and post: the wallet is asked for eth_signTypedData_v4 of a
	// JobBid, the relayer submits it, the page moves to the job.
	p.WaitVisible("#sign-job")
	p.Click("#sign-job")
	p.WaitText("#job-status", "matched")
	require.True(t, strings.HasSuffix(p.URL(), "/jobs/1"), p.URL())
	var signed bool
	for _, call := range p.WalletCalls() {
		if call.Method == "eth_signTypedData_v4" {
			signed = true
			require.Contains(t, call.Params[1], `"primaryType":"JobBid"`)
		}
	}
	require.True(t, signed, "the wallet signed the bid")
	require.Contains(t, p.Text("#clearing-price"), "0.90 USDC/GPU-h")
	p.Screenshot("job")
	require.EqualValues(t, relayerBefore+relayerFee, c.Balance(relayer, "uusdc"), "the relayer earned the fee the bid allowed")

	// The renter sends the manifest from the lease page: its wallet signs
	// the request (personal_sign over the endpoint's text) and the app
	// forwards it over TLS pinned to the provider's registered certificate.
	p.Navigate(url + "/leases/1")
	p.WaitVisible("#send-manifest")
	p.SetValue("#lease-manifest", manifest)
	p.Click("#send-manifest")
	p.WaitText("form[data-endpoint=manifest] .status", "manifest accepted by the provider for lease 1")
	c.WaitLease(1, "LEASE_STATUS_ACTIVE", 30*time.Second)
	p.Navigate(url + "/leases/1")
	p.WaitVisible("#show-logs")
	p.Click("#show-logs")
	p.WaitText("#job-logs", "web job on GPU-")
	var personal int
	for _, call := range p.WalletCalls() {
		if call.Method == "personal_sign" {
			personal++
		}
	}
	require.Equal(t, 2, personal, "the manifest and the logs request were signed by the wallet")
	p.Screenshot("lease-job")

	// A second job, under every ask (0.5 USDC) with a long bid window, stays
	// open; the renter cancels it from its page. The deposit comes back
	// whole; the relayer is paid its fee twice (post and cancel).
	before := c.Balance(renter, "uusdc")
	p.Navigate(url + "/post")
	p.WaitVisible("#sign-job")
	for sel, v := range fill {
		p.SetValue(sel, v)
	}
	p.SetValue("#max_price", "0.5usdc/gpu-h")
	p.SetValue("#bid_window", "500")
	p.Click("#sign-job")
	p.WaitText("#job-status", "open")
	require.True(t, strings.HasSuffix(p.URL(), "/jobs/2"), p.URL())
	require.EqualValues(t, before-relayerFee-5_556, c.Balance(renter, "uusdc"), "escrow ceil(500,000 × 40 / 3600) = 5,556 and the fee")
	p.Click("#cancel-job")
	p.WaitText("#job-status", "cancelled")
	require.EqualValues(t, before-2*relayerFee, c.Balance(renter, "uusdc"), "the deposit refunded whole; two relayer fees paid")
	require.EqualValues(t, relayerBefore+3*relayerFee, c.Balance(relayer, "uusdc"))
	p.Screenshot("job-cancelled")

	// The first proven epoch pays floor(900,000 × 20 / 3600) = 5,000 uusdc.
	waitPage(t, p, url+"/leases/1", "#epochs", "proven")
	require.Contains(t, p.Text("#epochs"), "0.005 USDC")
	require.Contains(t, p.Text("#lease-price"), "0.90 USDC/GPU-h")
	// Its samples, fetched from the provider under a wallet signature and
	// each checked against the root of the proof the chain accepted.
	p.WaitVisible("#check-samples")
	p.Click("#check-samples")
	p.WaitText("form[data-endpoint=samples] .status", "samples of epoch 0, every one under the proof's root")
	require.Contains(t, p.Text("#samples"), "GPU-")
	p.Screenshot("lease")

	// The lease completes (two epochs, 10,000 uusdc); the provider page
	// shows what it earned net of the take rate, as the index has it.
	c.WaitLease(1, "LEASE_STATUS_COMPLETED", 120*time.Second)
	var sp struct {
		Params struct {
			TakeRateBps uint32 `json:"take_rate_bps"`
		} `json:"params"`
	}
	c.Query(&sp, "settlement", "params")
	const paid = 10_000
	earned := paid - paid*int64(sp.Params.TakeRateBps)/10_000
	want := fmt.Sprintf("%s USDC", strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", float64(earned)/1e6), "0"), "."))
	waitPage(t, p, url+"/providers/"+a.Addr, "#earned", want)
	require.Contains(t, p.Text("#gpus"), model)
	p.Screenshot("provider")

	// The renter's jobs, found from the wallet's button.
	p.Navigate(url + "/jobs")
	p.Click("[data-wallet-connect]")
	p.WaitText("#jobs", "completed")
	require.Contains(t, p.Text(".leases.ended"), "0.01 USDC", "the ended lease paid 10,000 uusdc")
	jobs := p.Text("#jobs")
	require.Contains(t, jobs, "0.001112 USDC", "job 1: 11,112 escrowed, cut to 10,000 at clearing, 1,112 refunded")
	require.Contains(t, jobs, "0.005556 USDC", "job 2: its whole deposit refunded on cancel")
	p.Screenshot("jobs")

	// The renter takes 2.5 USDC of its unspent balance back out from the
	// withdrawal page: its wallet signs a Withdraw, the relayer submits it
	// for its fee, x/bridge burns the amount and adds it to the cumulative
	// payout of the wallet's own EVM address.
	before = c.Balance(renter, "uusdc")
	relayerAt := c.Balance(relayer, "uusdc")
	p.Navigate(url + "/withdraw")
	p.WaitVisible("#withdraw")
	p.SetValue("#withdraw-amount", "2.5")
	p.Click("#withdraw")
	p.WaitText("#withdraw-cumulative", "2.50 USDC")
	require.True(t, strings.Contains(p.URL(), "/withdraw?account="+wallet.Address().Hex()), p.URL())
	var withdrew bool
	for _, call := range p.WalletCalls() {
		if call.Method == "eth_signTypedData_v4" && strings.Contains(fmt.Sprint(call.Params[1]), `"primaryType":"Withdraw"`) {
			withdrew = true
			require.Contains(t, call.Params[1], `"amount":"2500000"`)
		}
	}
	require.True(t, withdrew, "the wallet signed the withdrawal")
	require.EqualValues(t, before-2_500_000-relayerFee, c.Balance(renter, "uusdc"), "the amount burned and the relayer's fee paid, nothing else")
	require.EqualValues(t, relayerAt+relayerFee, c.Balance(relayer, "uusdc"))
	var cum struct {
		Amount string `json:"amount"`
	}
	c.Query(&cum, "bridge", "cumulative", wallet.Address().Hex())
	require.Equal(t, "2500000", cum.Amount, "x/bridge owes the wallet's EVM address exactly the amount")
	p.Screenshot("withdraw")

	waitPage(t, p, url+"/network", "#validators", "")
	require.Contains(t, p.Text("#params-bridge"), "vault_address")
	p.Screenshot("network")

	// Paging on a real chain: alice posts 51 jobs no offer serves (at most
	// 0.01 USDC/GPU-h, a 500-block bid window); her jobs page shows 50 of
	// 51 and "next page" reaches the 51st.
	manifestFile := filepath.Join(t.TempDir(), "manifest.json")
	require.NoError(t, os.WriteFile(manifestFile, []byte(manifest), 0o600))
	postJobs(t, c, "alice", 51, "--gpus", "1", "--model", model, "--duration", "40s", "--max-price", "0.01usdc/gpu-h",
		"--bid-window", "500", "--image", image, "--manifest", manifestFile, "--tier", "bronze", "--workload", "training")
	alice := c.Address("alice")
	waitPage(t, p, url+"/jobs?renter="+alice, "#jobs-pager", "1–50 of 51")
	p.Click("#jobs-pager a[rel=next]")
	p.WaitText("#jobs-pager", "51–51 of 51")
	var rows int
	p.Eval(`document.querySelectorAll("#jobs tbody tr").length`, &rows)
	require.Equal(t, 1, rows)
	p.Screenshot("jobs-page-2")

	// The same chain indexed into PostgreSQL by a second idlegpu-web (where
	// a cluster can run; CI requires one): the same paging and the same
	// lease and earnings, read from its own index.
	if dsn, ok := pgtest.Try(t); ok {
		pgPort := harness.FreePorts(t, 1)[0]
		pgURL := fmt.Sprintf("http://127.0.0.1:%d", pgPort)
		pgApp := harness.Start(t, web, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", pgPort),
			"--node", c.RPC, "--grpc", c.GRPC(), "--chain-id", c.ChainID, "--db", dsn)
		defer func() {
			if t.Failed() {
				t.Logf("web on PostgreSQL (tail):\n%s", harness.Tail(pgApp.Output(), 40))
			}
		}()
		harness.WaitFor(t, 60*time.Second, "the web app on PostgreSQL to catch up", func() bool {
			res, err := http.Get(pgURL + "/healthz")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == http.StatusOK
		})
		waitPage(t, p, pgURL+"/jobs?renter="+alice, "#jobs-pager", "1–50 of 51")
		p.Click("#jobs-pager a[rel=next]")
		p.WaitText("#jobs-pager", "51–51 of 51")
		p.Navigate(url + "/leases/1")
		onSQLite := p.Text("#epochs")
		waitPage(t, p, pgURL+"/leases/1", "#epochs", "proven")
		require.Equal(t, onSQLite, p.Text("#epochs"), "lease 1's epochs on SQLite and on PostgreSQL")
		waitPage(t, p, pgURL+"/providers/"+a.Addr, "#earned", want)
		p.Screenshot("provider-postgres")
	}

	// A phone's width: no page scrolls sideways.
	p.SetViewport(390, 900)
	for _, pg := range []struct{ name, path string }{
		{"market", "/"}, {"jobs", "/jobs?renter=" + alice}, {"lease", "/leases/1"}, {"provider", "/providers/" + a.Addr}, {"post", "/post"},
	} {
		p.Navigate(url + pg.path)
		p.WaitVisible("main")
		var w struct{ Scroll, Inner int }
		p.Eval(`({Scroll: document.documentElement.scrollWidth, Inner: window.innerWidth})`, &w)
		require.LessOrEqual(t, w.Scroll, w.Inner, "%s scrolls sideways at 390 px", pg.path)
		p.Screenshot(pg.name + "-390")
	}
	p.SetViewport(1280, 900)

	// Without JavaScript the market and the escrow preview still work.
	nojs := b.NewPageNoJS(t)
	waitPage(t, nojs, url+"/", "#asks", "0.90 USDC/GPU-h") // the GPU is free again once the market is re-read
	nojs.Navigate(url + "/post?preview=1&gpus=2&duration=2h&max_price=1.5usdc/gpu-h&image=" + image + "&tier=silver&workload=batch&manifest=x")
	nojs.WaitText("#escrow-preview", "locks 6.00 USDC in escrow")
	nojs.Screenshot("post-nojs")

	// The node stops. /healthz fails and says why; every page says so in a
	// banner; the ended lease is still shown, from the index.
	c.Node.Stop(t, syscall.SIGTERM)
	harness.WaitFor(t, 30*time.Second, "/healthz to fail", func() bool {
		res, err := http.Get(url + "/healthz")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode == http.StatusServiceUnavailable && strings.HasPrefix(string(body), "node unreachable: the node cannot be reached")
	})
	// (The pages read the node's head at most once a second.)
	waitPage(t, p, url+"/leases/1", "#node-down", "The node cannot be reached (it may be stopped or restarting).")
	require.Contains(t, p.Text("#lease-status"), "completed")
	require.Contains(t, p.Text("#lease-paid"), "0.01 USDC")
	p.Screenshot("node-down")
}

// waitPage reloads url until sel's text contains want: the index and the
// chain move on their own time.
func waitPage(t *testing.T, p *browsertest.Page, url, sel, want string) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for {
		p.Navigate(url)
		var txt string
		p.Eval(fmt.Sprintf(`(document.querySelector(%q)||{}).innerText||""`, sel), &txt)
		if strings.Contains(txt, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s never showed %q; it shows %q", url, sel, want, txt)
		}
		time.Sleep(time.Second)
	}
}
