package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

// startWeb serves idlegpu-web over the demo chain (indexing it from block
// 1, relaying with the validator's key), waits until its pages show the
// lease's three proven epochs and provider A's earnings, and returns its URL.
// It reports false when the app is missing or its pages never show them.
func startWeb(d *harness.Program, c *harness.Chain, bin, providerA string, earned int64) (string, bool) {
	web := filepath.Join(bin, "idlegpu-web")
	if _, err := os.Stat(web); err != nil {
		d.Errorf("%s missing: run `make build`", web)
		return "", false
	}
	port := harness.FreePorts(d, 1)[0]
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	harness.Start(d, web, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--node", c.RPC, "--grpc", c.GRPC(),
		"--chain-id", c.ChainID, "--db", filepath.Join(d.TempDir(), "index.db"),
		"--relayer-key", "validator", "--keyring-dir", c.Home, "--keyring-backend", "test", "--relayer-fee", "50000")
	ok := true
	check := func(path, want string) {
		err := waitBody(url+path, 60*time.Second, func(b string) bool { return strings.Contains(b, want) })
		if err != nil {
			ok = false
			d.Errorf("web app %s never showed %q: %v", path, want, err)
		}
	}
	check("/leases/1", `<span class="badge proven">proven</span>`)
	check("/providers/"+providerA, webUSDC(earned))
	check("/", model)
	return url, ok
}

// waitBody GETs url until done(body) or the timeout.
func waitBody(url string, timeout time.Duration, done func(string) bool) error {
	deadline := time.Now().Add(timeout)
	for {
		res, err := http.Get(url)
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK && done(string(b)) {
				return nil
			}
			err = fmt.Errorf("status %s", res.Status)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// webUSDC is an amount as the web app writes it: trimmed, at least two
// decimals ("0.0351 USDC").
func webUSDC(u int64) string {
	s := strings.TrimRight(fmt.Sprintf("%d.%06d", u/1_000_000, u%1_000_000), "0")
	if i := strings.IndexByte(s, '.'); len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s + " USDC"
}
