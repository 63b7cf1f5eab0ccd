package endpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Outputs fetches a lease's output listing and checks that it is signed and
// is of this lease, provider and chain. It returns the signer's address:
// the caller checks that the chain names it the provider's operator or one
// of its agents.
func (c *Client) Outputs(ctx context.Context, leaseID uint64) (Listing, sdk.AccAddress, error) {
	b, err := c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/leases/%d/outputs", leaseID), nil)
	if err != nil {
		return Listing{}, nil, err
	}
	var l Listing
	if err := json.Unmarshal(b, &l); err != nil {
		return Listing{}, nil, err
	}
	signer, err := l.Verify()
	if err != nil {
		return Listing{}, nil, err
	}
	if l.LeaseID != leaseID || l.ChainID != c.Target.ChainID || l.Provider != c.Target.Provider {
		return Listing{}, nil, fmt.Errorf("the listing is of lease %d of %s on %s, not lease %d of %s on %s",
			l.LeaseID, l.Provider, l.ChainID, leaseID, c.Target.Provider, c.Target.ChainID)
	}
	return l, signer, nil
}

// Download fetches a listed output file into path. The bytes go to
// path+".part" first; a .part an earlier try left is resumed with a Range
// request (If-Range on the file's sha256, so it only continues the same
// content). path appears only once the whole file's sha256 is the
// listing's. It returns the offset the download resumed from.
func (c *Client) Download(ctx context.Context, leaseID uint64, f File, path string) (int64, error) {
	part := path + ".part"
	out, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	have, err := out.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	if have > f.Size {
		have = 0
	}
	from := have
	if have < f.Size {
		if from, err = c.fetchFrom(ctx, leaseID, f, out, have); err != nil {
			return from, err
		}
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return from, err
	}
	h := sha256.New()
	n, err := io.Copy(h, out)
	if err != nil {
		return from, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != f.Size || got != f.SHA256 {
		// Wrong bytes cannot be resumed: the next try starts over.
		_ = os.Remove(part)
		return from, fmt.Errorf("%s: downloaded %d bytes with sha256 %s, the signed listing says %d bytes with %s", f.Name, n, got, f.Size, f.SHA256)
	}
	if err := out.Sync(); err != nil {
		return from, err
	}
	return from, os.Rename(part, path)
}

// fetchFrom asks for f from offset have and writes the answer into out:
// appended for a partial answer, from the start for a whole one.
func (c *Client) fetchFrom(ctx context.Context, leaseID uint64, f File, out *os.File, have int64) (int64, error) {
	path := fmt.Sprintf("/v1/leases/%d/outputs/%s", leaseID, escapePath(f.Name))
	req, err := c.newSigned(ctx, http.MethodGet, path, nil)
	if err != nil {
		return 0, err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
		req.Header.Set("If-Range", `"`+f.SHA256+`"`)
	}
	// A large file takes longer than the client's timeout for small
	// answers: the context bounds it instead.
	hc := *c.HTTP
	hc.Timeout = 0
	res, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	switch res.StatusCode {
	case http.StatusPartialContent:
	case http.StatusOK:
		have = 0
	default:
		b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return 0, answerError(http.MethodGet, path, res.StatusCode, b)
	}
	if err := out.Truncate(have); err != nil {
		return have, err
	}
	if _, err := out.Seek(have, io.SeekStart); err != nil {
		return have, err
	}
	_, err = io.Copy(out, io.LimitReader(res.Body, f.Size-have))
	return have, err
}

// escapePath escapes each segment of a slash-separated name.
func escapePath(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
