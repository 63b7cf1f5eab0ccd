package jobdata

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"syscall"
	"time"

	"github.com/idlegpu/idlegpu/agent/runner"
)

// Timeouts of a download; the whole fetch is bounded by its context (the
// daemon's: the lease's start deadline).
const (
	dialTimeout   = 10 * time.Second
	headerTimeout = 30 * time.Second
	// stallTimeout ends a download that sends nothing for this long.
	stallTimeout = 60 * time.Second
	maxRedirects = 5
)

// ErrInput is an input that cannot be used: a bad answer, too large, or
// not the bytes the manifest's sha256 names.
var ErrInput = errors.New("input refused")

// Fetcher downloads inputs into the cache.
type Fetcher struct {
	cache *Cache
	http  *http.Client
}

// NewFetcher returns a fetcher into cache. Without allowPrivate it refuses
// to connect to loopback, private, link-local and other non-public
// addresses: a renter's URL must not reach the provider's own network.
func NewFetcher(cache *Cache, allowPrivate bool) *Fetcher {
	d := &net.Dialer{Timeout: dialTimeout}
	if !allowPrivate {
		d.Control = publicOnly
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: headerTimeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          8,
		IdleConnTimeout:       time.Minute,
	}
	return &Fetcher{cache: cache, http: &http.Client{Transport: tr, CheckRedirect: checkRedirect}}
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrInput, maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: redirect to a %q URL", ErrInput, req.URL.Scheme)
	}
	return nil
}

// publicOnly refuses a connection to an address that is not a public
// unicast one; it runs after resolution, so a name cannot smuggle one in.
func publicOnly(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: address %q", ErrInput, address)
	}
	a := ap.Addr().Unmap()
	if !runner.PublicAddress(a) {
		return fmt.Errorf("%w: %s is not a public address", ErrInput, a)
	}
	return nil
}

// Fetch places the input with sha256 sum at dst, downloading it from url
// unless the cache has it, and returns its size. A download may use at
// most budget bytes; the sha256 is checked while the bytes arrive and a
// mismatch keeps nothing.
func (f *Fetcher) Fetch(ctx context.Context, url, sum, dst string, budget int64) (int64, error) {
	cached, err := f.cache.claim(sum, ctx.Done())
	if err != nil {
		return 0, err
	}
	if !cached {
		tmp, size, err := f.download(ctx, url, sum, budget)
		if err != nil {
			_ = f.cache.finishDownload(sum, "", 0)
			return 0, err
		}
		if err := f.cache.finishDownload(sum, tmp, size); err != nil {
			return 0, err
		}
	}
	defer f.cache.release(sum)
	f.cache.mu.Lock()
	size := f.cache.entries[sum].size
	f.cache.mu.Unlock()
	if size > budget {
		return 0, fmt.Errorf("%w: %d bytes, above the %d left of this lease's input allowance", ErrInput, size, budget)
	}
	return size, f.cache.place(sum, dst)
}

// download streams url into a temporary file in the cache directory and
// returns it once its sha256 is sum.
func (f *Fetcher) download(ctx context.Context, url, sum string, budget int64) (string, int64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", ErrInput, err)
	}
	res, err := f.http.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("%w: the server answered %s", ErrInput, res.Status)
	}
	if res.ContentLength > budget {
		return "", 0, fmt.Errorf("%w: %d bytes, above the %d left of this lease's input allowance", ErrInput, res.ContentLength, budget)
	}
	tmp, err := os.CreateTemp(f.cache.dir, ".part-*")
	if err != nil {
		return "", 0, err
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	stall := time.AfterFunc(stallTimeout, func() { cancel(errors.New("download stalled")) })
	defer stall.Stop()
	n, err := io.Copy(io.MultiWriter(tmp, h), &stallReader{r: io.LimitReader(res.Body, budget+1), t: stall})
	if err != nil {
		if c := context.Cause(ctx); c != nil {
			err = c
		}
		return "", 0, fmt.Errorf("download: %w", err)
	}
	if n > budget {
		return "", 0, fmt.Errorf("%w: more than the %d bytes left of this lease's input allowance", ErrInput, budget)
	}
	if got := hexSum(h); got != sum {
		return "", 0, fmt.Errorf("%w: sha256 %s, the manifest names %s", ErrInput, got, sum)
	}
	if err := tmp.Chmod(0o444); err != nil {
		return "", 0, err
	}
	if err := tmp.Sync(); err != nil {
		return "", 0, err
	}
	if err := tmp.Close(); err != nil {
		return "", 0, err
	}
	keep = true
	return tmp.Name(), n, nil
}

// stallReader pushes the stall timer back on every read that brings bytes.
type stallReader struct {
	r io.Reader
	t *time.Timer
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.t.Reset(stallTimeout)
	}
	return n, err
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
