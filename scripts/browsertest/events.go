package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// onEvent sees every event of the tab, on chromedp's read loop: it records
// and returns at once, and hands wallet requests to their own goroutine.
func (p *Page) onEvent(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventBindingCalled:
		if ev.Name == bindingName && p.wallet != nil {
			p.walletRequest(ev)
		}
	case *runtime.EventConsoleAPICalled:
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError:
			p.addError("console.error: " + consoleText(ev.Args))
		case runtime.ConsoleAPICalledTypeAssert:
			p.addError("console.assert: " + consoleText(ev.Args))
		}
	case *runtime.EventExceptionThrown:
		p.addError("uncaught exception: " + exceptionText(ev.ExceptionDetails))
	case *log.EventEntryAdded:
		// Errors the browser logs itself, such as a Content-Security-Policy
		// violation. Network ones are recorded, with more detail, below.
		if e := ev.Entry; e != nil && e.Level == log.EntryLevelError && e.Source != log.EntrySourceNetwork {
			p.addError(fmt.Sprintf("browser log (%s): %s", e.Source, e.Text))
		}
	case *network.EventRequestWillBeSent:
		if ev.Request != nil {
			p.mu.Lock()
			p.requests[ev.RequestID] = ev.Request.Method + " " + ev.Request.URL
			p.mu.Unlock()
		}
	case *network.EventResponseReceived:
		if r := ev.Response; r != nil && r.Status >= 400 && !isFavicon(r.URL) {
			p.addError(fmt.Sprintf("HTTP %d %s: %s", r.Status, r.StatusText, p.request(ev.RequestID, r.URL)))
		}
	case *network.EventLoadingFailed:
		// A canceled request is one the page or a navigation abandoned, not
		// a failure.
		if !ev.Canceled {
			req := p.request(ev.RequestID, "")
			if !isFavicon(req) {
				p.addError(fmt.Sprintf("network: %s: %s", ev.ErrorText, req))
			}
		}
	}
}

// request is the method and URL of a request, or fallback if unseen.
func (p *Page) request(id network.RequestID, fallback string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.requests[id]; ok {
		return r
	}
	if fallback == "" {
		return "request " + string(id)
	}
	return fallback
}

// isFavicon reports the browser's own favicon fetch, which no page asked for.
func isFavicon(url string) bool {
	return strings.HasSuffix(url, "/favicon.ico")
}

func (p *Page) addError(msg string) {
	p.mu.Lock()
	p.errs = append(p.errs, msg)
	p.mu.Unlock()
}

// Errors returns every error the page has had so far, expected or not.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}

// AllowErrors marks errors containing substr as expected, so that they do not
// fail the test when it ends.
func (p *Page) AllowErrors(substr string) {
	p.mu.Lock()
	p.allowed = append(p.allowed, substr)
	p.mu.Unlock()
}

// reportErrors fails the test with each error that AllowErrors did not expect.
func (p *Page) reportErrors() {
	p.mu.Lock()
	defer p.mu.Unlock()
	var unexpected []string
	for _, e := range p.errs {
		allowed := false
		for _, a := range p.allowed {
			if strings.Contains(e, a) {
				allowed = true
				break
			}
		}
		if !allowed {
			unexpected = append(unexpected, e)
		}
	}
	if len(unexpected) > 0 {
		p.t.Errorf("browser: the page had %d unexpected error(s) (use AllowErrors for expected ones):\n\t%s",
			len(unexpected), strings.Join(unexpected, "\n\t"))
	}
}

// WalletCalls returns the requests the page made of the wallet, in order.
func (p *Page) WalletCalls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// walletPayload is what provider.js sends through the binding.
type walletPayload struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// walletRequest records the request and answers it on a goroutine of its own,
// since answering means a DevTools call, which the read loop cannot wait for.
func (p *Page) walletRequest(ev *runtime.EventBindingCalled) {
	var req walletPayload
	if err := json.Unmarshal([]byte(ev.Payload), &req); err != nil {
		p.addError(fmt.Sprintf("wallet: undecodable request %q: %v", ev.Payload, err))
		return
	}
	params, ok := req.Params.([]any)
	if !ok && req.Params != nil {
		params = []any{req.Params}
	}
	p.mu.Lock()
	p.calls = append(p.calls, Call{Method: req.Method, Params: params})
	p.mu.Unlock()
	go p.settle(ev.ExecutionContextID, req.ID, req.Method, params)
}

// settle answers request id in the execution context that made it. A context
// gone since (the page navigated) drops the answer, as a real wallet's would
// be.
func (p *Page) settle(execCtx runtime.ExecutionContextID, id int64, method string, params []any) {
	result, err := p.wallet.Request(method, params)
	var perr *ProviderError
	if err != nil {
		var ok bool
		if perr, ok = err.(*ProviderError); !ok {
			perr = &ProviderError{Code: CodeInternal, Message: err.Error()}
		}
	}
	errJSON, _ := json.Marshal(perr)
	resJSON, merr := json.Marshal(result)
	if merr != nil {
		resJSON = []byte("null")
	}
	expr := fmt.Sprintf("window.__idlegpuWalletSettle(%d, %s, %s)", id, errJSON, resJSON)
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	_, _ = chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: execCtx})
		return chromedp.Void{}, err
	})
}

// consoleText renders console arguments roughly as DevTools does.
func consoleText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, remoteText(a))
	}
	return strings.Join(parts, " ")
}

func remoteText(o *runtime.RemoteObject) string {
	switch {
	case o == nil:
		return "undefined"
	case o.Type == runtime.RemoteObjectTypeString:
		var s string
		if err := json.Unmarshal([]byte(o.Value), &s); err == nil {
			return s
		}
	case o.UnserializableValue != "":
		return string(o.UnserializableValue)
	case o.Description != "":
		return o.Description
	case len(o.Value) > 0:
		return string(o.Value)
	}
	return string(o.Type)
}

// exceptionText is the exception's message without its stack.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "(no details)"
	}
	text := d.Text
	if d.Exception != nil {
		desc, _, _ := strings.Cut(remoteText(d.Exception), "\n    at ")
		text += " " + desc
	}
	if d.URL != "" {
		text += fmt.Sprintf(" (%s:%d)", d.URL, d.LineNumber+1)
	}
	return text
}
