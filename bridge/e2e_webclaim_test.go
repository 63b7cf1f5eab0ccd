package bridge

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/indexer"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/web"
)

// webClaim is what the web app's withdraw page shows account, served by
// the web package over the chain's gRPC: the page, and the calldata it
// gives for the claim on the vault ("" when it shows none).
func webClaim(t *testing.T, ctx context.Context, c *harness.Chain, account string) (page string, calldata []byte) {
	t.Helper()
	conn, err := web.DialNode(c.GRPC())
	require.NoError(t, err)
	defer conn.Close()
	db, err := indexer.Open(filepath.Join(t.TempDir(), "index.db"))
	require.NoError(t, err)
	defer db.Close()
	srv, err := web.New(ctx, web.Config{ChainID: c.ChainID}, conn, db, nil)
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/withdraw?account="+account, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	page = rec.Body.String()
	if m := regexp.MustCompile(`<code id="claim-calldata">(0x[0-9a-f]+)</code>`).FindStringSubmatch(page); m != nil {
		calldata, err = hexutil.Decode(html.UnescapeString(m[1]))
		require.NoError(t, err)
	}
	return page, calldata
}
