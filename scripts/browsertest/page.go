package browsertest

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// DefaultTimeout is how long a helper waits before it fails the test.
const DefaultTimeout = 30 * time.Second

// providerJS defines window.ethereum; see provider.js.
//
//go:embed provider.js
var providerJS string

// bindingName is the runtime binding the provider calls; Go answers it.
const bindingName = "__idlegpuWalletRequest"

// Page is one browser tab. Its helpers fail the test (t.Fatalf) when they time
// out; they must be called from the test's goroutine.
//
// The page's errors are recorded (see Errors) and, when the test ends, each
// one that AllowErrors did not expect fails it: console.error and failed
// console.assert calls, uncaught exceptions and promise rejections, errors the
// browser logs (such as a Content-Security-Policy violation), requests that
// fail at the network level, and responses with status 400 or above, for any
// request the tab makes except the browser's own /favicon.ico fetch. A
// request canceled by a navigation is not an error.
type Page struct {
	// Timeout bounds each helper; DefaultTimeout unless changed.
	Timeout time.Duration

	t      testing.TB
	ctx    context.Context // the tab's chromedp context
	wallet *Wallet

	mu       sync.Mutex
	errs     []string
	allowed  []string
	calls    []Call
	requests map[network.RequestID]string // URL of each request, for messages
}

func (b *Browser) newPage(t testing.TB, w *Wallet, js bool) *Page {
	t.Helper()
	p := &Page{Timeout: DefaultTimeout, t: t, wallet: w, requests: map[network.RequestID]string{}}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithListener(p.onEvent))
	p.ctx = ctx
	// The first Do opens the tab and binds it to ctx, so it carries no
	// deadline; what follows does.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatalf("browser: opening a tab: %v", err)
	}
	t.Cleanup(func() {
		p.reportErrors()
		cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
		defer ccancel()
		_ = chromedp.Cancel(cctx)
		cancel()
	})
	var setup []chromedp.Action[chromedp.Void]
	if w != nil {
		setup = append(setup, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, runtime.AddBinding, runtime.AddBindingParams{Name: bindingName}); err != nil {
				return fmt.Errorf("adding the wallet binding: %w", err)
			}
			_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: providerJS})
			if err != nil {
				return fmt.Errorf("injecting window.ethereum: %w", err)
			}
			return nil
		}))
	}
	if !js {
		setup = append(setup, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		}))
	}
	if err := p.do(setup...); err != nil {
		t.Fatalf("browser: setting up the tab: %v", err)
	}
	return p
}

// do runs actions in the tab under the page's timeout.
func (p *Page) do(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(p.ctx, p.Timeout)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// fail ends the test with what the helper was doing, the error, and where the
// page was: its URL and the start of its text.
func (p *Page) fail(what string, err error) {
	p.t.Helper()
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %v", p.Timeout)
	}
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	url, uerr := chromedp.Run(ctx, chromedp.Location())
	if uerr != nil {
		url = "(unknown: " + uerr.Error() + ")"
	}
	body, berr := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if berr != nil {
		body = "(unknown: " + berr.Error() + ")"
	}
	p.t.Fatalf("browser: %s: %v\n\turl: %s\n\tbody: %s", what, err, url, snippet(body, 500))
}

// snippet shortens s to about n bytes on one line.
func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// Navigate loads url and waits for its load event.
func (p *Page) Navigate(url string) {
	p.t.Helper()
	if err := p.do(chromedp.Navigate(url)); err != nil {
		p.fail(fmt.Sprintf("Navigate(%q)", url), err)
	}
}

// WaitVisible waits until the element sel (a CSS selector) is visible.
func (p *Page) WaitVisible(sel string) {
	p.t.Helper()
	if err := p.do(chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		p.fail(fmt.Sprintf("WaitVisible(%q)", sel), err)
	}
}

// WaitText waits until the innerText of the element sel contains substr.
func (p *Page) WaitText(sel, substr string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, p.Timeout)
	defer cancel()
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%s); return el ? el.innerText : null; })()`, jsString(sel))
	var last *string
	for {
		text, err := chromedp.Run(ctx, chromedp.Evaluate[*string](js))
		if err == nil {
			last = text
			if text != nil && strings.Contains(*text, substr) {
				return
			}
		}
		select {
		case <-ctx.Done():
			got := "no such element"
			if last != nil {
				got = fmt.Sprintf("text %q", snippet(*last, 200))
			}
			p.fail(fmt.Sprintf("WaitText(%q, %q), last saw %s", sel, substr, got), ctx.Err())
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Text returns the innerText of the element sel, waiting for it to exist.
func (p *Page) Text(sel string) string {
	p.t.Helper()
	p.waitReady(sel, "Text")
	var text string
	p.Eval(fmt.Sprintf(`document.querySelector(%s).innerText`, jsString(sel)), &text)
	return text
}

// SetValue sets the value of the form control sel and fires input and change
// events, as typing would.
func (p *Page) SetValue(sel, v string) {
	p.t.Helper()
	p.waitReady(sel, "SetValue")
	p.Eval(fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		el.value = %s;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, jsString(sel), jsString(v)), nil)
}

// Click clicks the element sel with the mouse, once it is visible.
func (p *Page) Click(sel string) {
	p.t.Helper()
	if err := p.do(chromedp.Click(chromedp.CSS(sel))); err != nil {
		p.fail(fmt.Sprintf("Click(%q)", sel), err)
	}
}

// Submit submits the form sel, or the form of the control sel, as its submit
// button would: validation and submit handlers run (requestSubmit).
func (p *Page) Submit(sel string) {
	p.t.Helper()
	p.waitReady(sel, "Submit")
	var ok bool
	p.Eval(fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		const form = el instanceof HTMLFormElement ? el : el.form;
		if (!form) return false;
		form.requestSubmit();
		return true;
	})()`, jsString(sel)), &ok)
	if !ok {
		p.fail(fmt.Sprintf("Submit(%q)", sel), errors.New("the element is not a form and has no form"))
	}
}

// Eval evaluates the JavaScript expression js, awaiting it if it is a promise,
// and decodes its JSON value into out (nil to discard it).
func (p *Page) Eval(js string, out any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, p.Timeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.fail(fmt.Sprintf("Eval(%s)", snippet(js, 200)), err)
		return
	}
	if out == nil {
		return
	}
	if len(raw) == 0 {
		raw = []byte("null")
	}
	if err := json.Unmarshal(raw, out); err != nil {
		p.fail(fmt.Sprintf("Eval(%s)", snippet(js, 200)), fmt.Errorf("decoding %s into %T: %w", snippet(string(raw), 200), out, err))
	}
}

// URL returns the tab's current URL.
func (p *Page) URL() string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, p.Timeout)
	defer cancel()
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		p.fail("URL()", err)
	}
	return url
}

// waitReady waits until the element sel exists.
func (p *Page) waitReady(sel, helper string) {
	p.t.Helper()
	if err := p.do(chromedp.WaitReady(chromedp.CSS(sel))); err != nil {
		p.fail(fmt.Sprintf("%s(%q)", helper, sel), err)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// SetViewport lays the tab out at width × height CSS pixels, as a phone
// (390 wide) or a desktop window would, with the mobile viewport meta tag
// honoured below 700 px; the page is laid out again at once.
func (p *Page) SetViewport(width, height int64) {
	p.t.Helper()
	var opts []chromedp.EmulateViewportOption
	if width < 700 {
		opts = append(opts, chromedp.EmulateMobile)
	}
	if err := p.do(chromedp.EmulateViewport(width, height, opts...)); err != nil {
		p.fail(fmt.Sprintf("SetViewport(%d, %d)", width, height), err)
	}
}
