// Package browser drives a real headless Chromium for the web app's end-to-end
// tests, through chromedp. A Page can carry an injected EIP-1193 wallet
// (window.ethereum) whose requests are answered in Go by a Wallet, records the
// page's errors and fails the test on any it was not told to expect, and has
// small helpers with timeouts that report the URL and the page text when they
// give up.
//
// Starting Chromium takes seconds, a tab well under one: start one Browser in a
// test and give each subtest its own Page.
//
//	func TestConnect(t *testing.T) {
//		b := browser.Start(t)
//		t.Run("signs in", func(t *testing.T) {
//			w := browser.NewWallet(t, chainID)
//			p := b.NewPage(t, w)
//			p.Navigate(srv.URL + "/")
//			p.Click("#connect")
//			p.WaitText("#account", w.Address().Hex())
//			// p.WalletCalls() lists what the page asked the wallet to sign.
//		})
//	}
//
// Environment:
//
//   - IDLEGPU_CHROMIUM: the browser binary. When set, a browser that cannot be
//     found or started fails the test; when unset, Start looks for chromium,
//     chromium-browser and google-chrome on PATH and skips the test if there
//     is none. CI sets it, so CI never skips.
//   - IDLEGPU_SCREENSHOTS: where Screenshot writes; by default
//     <repository root>/build/screenshots.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// EnvChromium names the browser binary; see the package doc.
const EnvChromium = "IDLEGPU_CHROMIUM"

// candidates are the names Find looks for on PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome"}

// startTimeout bounds the browser's start; a browser that hangs there would
// otherwise hang the test until the go test deadline.
const startTimeout = 60 * time.Second

// Find returns the path of the browser binary: $IDLEGPU_CHROMIUM if set, else
// the first of chromium, chromium-browser and google-chrome on PATH.
func Find() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s=%q is not an executable: %w", EnvChromium, p, err)
		}
		return path, nil
	}
	for _, name := range candidates {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("no browser found: %s is unset and none of %s is on PATH",
		EnvChromium, strings.Join(candidates, ", "))
}

// Browser is one headless Chromium process; each Page is a tab in it.
type Browser struct {
	ctx context.Context // the chromedp context that owns the process
}

// Start starts a headless Chromium that is stopped when the test ends. With no
// browser found and IDLEGPU_CHROMIUM unset it skips the test; with
// IDLEGPU_CHROMIUM set, any failure is fatal.
func Start(t testing.TB) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv(EnvChromium) == "" {
			t.Skipf("browser: %v; install Chromium or set %s to run this test", err, EnvChromium)
		}
		t.Fatalf("browser: %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		// new headless is the real browser without a window, not the old
		// separate headless shell.
		chromedp.Flag("headless", "new"),
		// Root in a container has no usable sandbox and a small /dev/shm.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
		// No user-data-dir flag: chromedp then makes a temporary one and
		// removes it when the browser has exited.
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first Do binds the process to ctx, so it must not carry a deadline;
	// the timer cancels it instead if the start hangs.
	timer := time.AfterFunc(startTimeout, cancel)
	err = chromedp.Do(ctx)
	stopped := timer.Stop()
	if err != nil {
		cancel()
		cancelAlloc()
		if !stopped {
			err = fmt.Errorf("not started within %v: %w", startTimeout, err)
		}
		t.Fatalf("browser: starting %s: %v", path, err)
	}
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		if err := chromedp.Cancel(cctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			t.Logf("browser: stopping: %v", err)
		}
		cancel()
		cancelAlloc()
	})
	return &Browser{ctx: ctx}
}

// NewPage opens a new tab, closed when the test ends. With a wallet, the tab
// gets window.ethereum before any page script runs.
func (b *Browser) NewPage(t testing.TB, w *Wallet) *Page {
	t.Helper()
	return b.newPage(t, w, true)
}

// NewPageNoJS opens a new tab with JavaScript disabled, to prove that a page
// works without it. The helpers still work: they run through DevTools, not the
// page's scripts.
func (b *Browser) NewPageNoJS(t testing.TB) *Page {
	t.Helper()
	return b.newPage(t, nil, false)
}
