package browsertest_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idlegpu/idlegpu/scripts/browsertest"
)

// TestBrowser starts one Chromium, which takes seconds, and runs every
// browser test in it, each in its own tab.
func TestBrowser(t *testing.T) {
	b := browsertest.Start(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *browsertest.Browser)
	}{
		{"WalletSignsInPage", testWalletSignsInPage},
		{"WalletIsThereBeforePageScripts", testWalletIsThereBeforePageScripts},
		{"ErrorsAreRecorded", testErrorsAreRecorded},
		{"UnexpectedErrorsFailTheTest", testUnexpectedErrorsFailTheTest},
		{"TimeoutReportsWhereThePageWas", testTimeoutReportsWhereThePageWas},
		{"FormsWithoutJavaScript", testFormsWithoutJavaScript},
		{"SubmitRunsHandlers", testSubmitRunsHandlers},
		{"Screenshot", testScreenshot},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, b) })
	}
}

// recorder is a testing.TB whose Errorf and Fatalf are recorded instead of
// failing the test; Fatalf ends the goroutine, as the real one does.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failed...)
}

// serve starts a server with one HTML page per path; /echo shows its query
// parameter q, and every other path is a 404.
func serve(t *testing.T, pages map[string]string) string {
	t.Helper()
	mux := http.NewServeMux()
	for path, html := range pages {
		if strings.HasSuffix(path, "/") {
			path += "{$}" // exactly this path, not the subtree
		}
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		})
	}
	mux.HandleFunc("GET /echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><p id="result">q=%s</p>`, template(r.URL.Query().Get("q")))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// template escapes s for HTML text.
func template(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// walletPage asks the wallet for its account, then for a typed-data signature,
// a personal_sign and an unsupported method, and shows the results as JSON.
const walletPage = `<!doctype html>
<button id="connect">Connect</button>
<pre id="out"></pre>
<p id="status">idle</p>
<script>
const typedData = ` + mailTypedData + `;
document.getElementById("connect").addEventListener("click", async () => {
  const res = {isTest: window.ethereum.isIdlegpuTest};
  const [account] = await window.ethereum.request({method: "eth_requestAccounts"});
  res.account = account;
  res.chainId = await window.ethereum.request({method: "eth_chainId"});
  typedData.domain.chainId = parseInt(res.chainId, 16);
  res.typedData = JSON.stringify(typedData);
  res.typedSig = await window.ethereum.request({method: "eth_signTypedData_v4", params: [account, res.typedData]});
  res.personalSig = await window.ethereum.request({method: "personal_sign", params: ["hello idlegpu", account]});
  try {
    await window.ethereum.request({method: "eth_sendTransaction", params: [{}]});
  } catch (e) {
    res.unsupported = {code: e.code, message: e.message};
  }
  document.getElementById("out").textContent = JSON.stringify(res);
  document.getElementById("status").textContent = "done";
});
</script>`

func testWalletSignsInPage(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]string{"/wallet": walletPage})
	w := browsertest.NewWallet(t, testChainID)
	p := b.NewPage(t, w)

	p.Navigate(base + "/wallet")
	p.Click("#connect")
	p.WaitText("#status", "done")

	var res struct {
		IsTest      bool   `json:"isTest"`
		Account     string `json:"account"`
		ChainID     string `json:"chainId"`
		TypedData   string `json:"typedData"`
		TypedSig    string `json:"typedSig"`
		PersonalSig string `json:"personalSig"`
		Unsupported struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"unsupported"`
	}
	p.Eval(`JSON.parse(document.getElementById("out").textContent)`, &res)

	if !res.IsTest {
		t.Error("window.ethereum.isIdlegpuTest is not true")
	}
	if res.Account != w.Address().Hex() || res.ChainID != "0x7" {
		t.Errorf("account %s on chain %s, want %s on 0x7", res.Account, res.ChainID, w.Address().Hex())
	}
	if signer := recoverTypedData(t, res.TypedData, res.TypedSig); signer != w.Address() {
		t.Errorf("typed data signer %s, want %s", signer, w.Address())
	}
	if signer := recoverPersonal(t, []byte("hello idlegpu"), res.PersonalSig); signer != w.Address() {
		t.Errorf("personal_sign signer %s, want %s", signer, w.Address())
	}
	if res.Unsupported.Code != browsertest.CodeUnsupportedMethod || !strings.Contains(res.Unsupported.Message, "unsupported method") {
		t.Errorf("eth_sendTransaction rejected with %+v, want code 4200 unsupported method", res.Unsupported)
	}

	var methods []string
	for _, c := range p.WalletCalls() {
		methods = append(methods, c.Method)
	}
	want := []string{"eth_requestAccounts", "eth_chainId", "eth_signTypedData_v4", "personal_sign", "eth_sendTransaction"}
	if !slices.Equal(methods, want) {
		t.Fatalf("wallet calls %v, want %v", methods, want)
	}
	if signed := p.WalletCalls()[2].Params[1]; signed != res.TypedData {
		t.Errorf("recorded typed data %v, want what the page sent %s", signed, res.TypedData)
	}
}

func testWalletIsThereBeforePageScripts(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]string{"/": `<!doctype html><p id="has"></p>
<script>document.getElementById("has").textContent = typeof window.ethereum + " " + typeof window.ethereum.request;</script>`})
	p := b.NewPage(t, browsertest.NewWallet(t, 1))
	p.Navigate(base + "/")
	if got := p.Text("#has"); got != "object function" {
		t.Errorf("with a wallet, the first page script saw %q, want %q", got, "object function")
	}

	// Without a wallet the page has none, and its TypeError is an error the
	// test must expect.
	bare := b.NewPage(t, nil)
	bare.AllowErrors("TypeError")
	bare.Navigate(base + "/")
	var eth string
	bare.Eval(`typeof window.ethereum`, &eth)
	if eth != "undefined" {
		t.Errorf("without a wallet, window.ethereum is %s", eth)
	}
}

func testErrorsAreRecorded(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]string{"/": `<!doctype html><p id="status">loading</p>
<script>
console.error("boom", 42);
console.assert(1 === 2, "arithmetic");
fetch("/missing").then(() => { document.getElementById("status").textContent = "fetched"; });
setTimeout(() => { throw new Error("kaput"); }, 0);
</script>`})
	p := b.NewPage(t, nil)
	p.AllowErrors("boom")
	p.AllowErrors("arithmetic")
	p.AllowErrors("/missing")
	p.AllowErrors("kaput")

	p.Navigate(base + "/")
	p.WaitText("#status", "fetched")
	var errs []string
	for _, want := range []string{"console.error: boom 42", "console.assert: arithmetic", "HTTP 404", "uncaught exception", "kaput"} {
		p.Eval(`new Promise(r => setTimeout(r, 0))`, nil) // let late events arrive
		errs = p.Errors()
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, want) }) {
			t.Errorf("Errors() = %q, want one containing %q", errs, want)
		}
	}
	if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, "GET "+base+"/missing") }) {
		t.Errorf("Errors() = %q, want the 404 to name GET %s/missing", errs, base)
	}
}

func testFormsWithoutJavaScript(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]string{"/": `<!doctype html>
<p id="msg">static</p>
<noscript><p id="ns">works without JavaScript</p></noscript>
<script>document.getElementById("msg").textContent = "script ran";</script>
<form id="f" action="/echo"><input id="q" name="q"><button id="go">Go</button></form>`})
	p := b.NewPageNoJS(t)

	p.Navigate(base + "/")
	p.WaitVisible("#ns")
	if got := p.Text("#msg"); got != "static" {
		t.Errorf("#msg = %q: the page's script ran", got)
	}
	p.SetValue("#q", "a&b")
	p.Click("#go")
	p.WaitText("#result", "q=a&b")
	if u := p.URL(); !strings.HasPrefix(u, base+"/echo?q=a%26b") {
		t.Errorf("URL() = %s, want %s/echo?q=a%%26b", u, base)
	}
}

func testSubmitRunsHandlers(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]string{"/": `<!doctype html>
<form id="f"><input id="q" name="q"></form><p id="out"></p>
<script>
const q = document.getElementById("q");
q.addEventListener("input", () => { document.getElementById("out").dataset.typed = q.value; });
document.getElementById("f").addEventListener("submit", (e) => {
  e.preventDefault();
  document.getElementById("out").textContent = "submitted " + q.value + " typed " + document.getElementById("out").dataset.typed;
});
</script>`})
	p := b.NewPage(t, nil)
	p.Navigate(base + "/")
	p.SetValue("#q", "gpu")
	p.Submit("#q")
	p.WaitText("#out", "submitted gpu typed gpu")
}

func testScreenshot(t *testing.T, b *browsertest.Browser) {
	dir := t.TempDir()
	t.Setenv(browsertest.EnvScreenshots, dir)
	base := serve(t, map[string]string{"/": `<!doctype html><h1>idlegpu</h1><div style="height:2000px"></div><p>end</p>`})
	p := b.NewPage(t, nil)
	p.Navigate(base + "/")
	path := p.Screenshot("full")
	if want := dir + "/full.png"; path != want {
		t.Errorf("Screenshot path %s, want %s", path, want)
	}
	png, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("%s is not a PNG", path)
	}
}

func testUnexpectedErrorsFailTheTest(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]string{"/": `<!doctype html><p id="s">ready</p><script>console.error("anticipated"); console.error("surprise");</script>`})
	rec := &recorder{}
	t.Run("page", func(t *testing.T) {
		rec.TB = t
		p := b.NewPage(rec, nil)
		p.AllowErrors("anticipated")
		p.Navigate(base + "/")
		p.WaitText("#s", "ready")
	}) // the page's cleanup reports its errors here
	got := rec.failures()
	if len(got) != 1 || !strings.Contains(got[0], "surprise") || strings.Contains(got[0], "anticipated") {
		t.Errorf("the test was failed with %q, want one failure naming only the unexpected error", got)
	}
}

func testTimeoutReportsWhereThePageWas(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]string{"/here": `<!doctype html><p id="s">some text on the page</p>`})
	rec := &recorder{TB: t}
	p := b.NewPage(rec, nil)
	p.Timeout = 300 * time.Millisecond
	p.Navigate(base + "/here")
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.WaitText("#s", "never there")
	}()
	<-done
	got := rec.failures()
	if len(got) != 1 {
		t.Fatalf("WaitText failed the test with %q, want one failure", got)
	}
	for _, want := range []string{`WaitText("#s", "never there")`, "some text on the page", "timed out after 300ms", "url: " + base + "/here", "body: some text on the page"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("failure %q does not contain %q", got[0], want)
		}
	}
}
