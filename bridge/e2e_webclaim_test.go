package bridge

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/indexer"
	"github.com/idlegpu/idlegpu/scripts/browsertest"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/web"
)

// webApp serves the web app's pages over the chain's gRPC, with an index of
// its own, until the test ends.
func webApp(t *testing.T, ctx context.Context, c *harness.Chain) http.Handler {
	t.Helper()
	conn, err := web.DialNode(c.GRPC())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	db, err := indexer.Open(filepath.Join(t.TempDir(), "index.db"))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	srv, err := web.New(ctx, web.Config{ChainID: c.ChainID}, conn, db, nil)
	require.NoError(t, err)
	return srv
}

// webClaim is what the web app's withdraw page shows account: the page, and
// the calldata it gives for the claim on the vault (nil when it shows none).
func webClaim(t *testing.T, app http.Handler, account string) (page string, calldata []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/withdraw?account="+account, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	page = rec.Body.String()
	if m := regexp.MustCompile(`<code id="claim-calldata">(0x[0-9a-f]+)</code>`).FindStringSubmatch(page); m != nil {
		var err error
		calldata, err = hexutil.Decode(html.UnescapeString(m[1]))
		require.NoError(t, err)
	}
	return page, calldata
}

// claimInTheBrowser: the wallet renter opens its withdraw page in headless
// Chromium and presses "Claim with my wallet"; its wallet (the renter's EVM
// key, its RPC geth) sends the page's claim to the vault. It returns what
// the page then says. A second press is refused by the wallet's estimate,
// and the page names the vault's reason. Without a browser (and without
// IDLEGPU_CHROMIUM, which CI sets) it sends the page's calldata from Go and
// says so.
func claimInTheBrowser(t *testing.T, g *gethNode, app http.Handler, renter ethActor, account string, vaultC *bind.BoundContract) {
	t.Helper()
	if _, err := browsertest.Find(); err != nil && os.Getenv(browsertest.EnvChromium) == "" {
		t.Logf("no browser (%v): the claim is sent from Go with the page's calldata instead of its button", err)
		_, calldata := webClaim(t, app, account)
		require.NotEmpty(t, calldata, "the page gives the claim's calldata")
		g.send(renter, vaultC, calldata)
		return
	}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	b := browsertest.Start(t)
	wallet := &browsertest.Wallet{Key: renter.key, ChainID: g.chain.Uint64()}
	wallet.ConnectEVM(g.client)
	p := b.NewPage(t, wallet)
	p.Navigate(srv.URL + "/withdraw?account=" + account)
	p.WaitVisible("#claim-send")
	p.Click("#claim-send")
	p.WaitText("#claim-status", "Claimed: the vault paid in 0x")
	p.Screenshot("withdraw-claimed")
	var sent bool
	for _, call := range p.WalletCalls() {
		if call.Method == "eth_sendTransaction" {
			sent = true
			require.Equal(t, fmt.Sprint(call.Params[0].(map[string]any)["data"]), firstClaimData(t, app, account))
		}
	}
	require.True(t, sent, "the wallet sent the claim")

	// Pressed again: nothing is left to pay, and the page says so in words.
	p.Click("#claim-send")
	p.WaitText("#claim-status", "The vault refuses the claim: NothingToClaim: the vault has already paid this address everything this root holds.")
}

// firstClaimData is the page's calldata as the page's button sends it.
func firstClaimData(t *testing.T, app http.Handler, account string) string {
	t.Helper()
	_, calldata := webClaim(t, app, account)
	return hexutil.Encode(calldata)
}
