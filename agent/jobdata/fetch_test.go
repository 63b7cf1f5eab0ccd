package jobdata

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// files serves content by path and counts the requests per path.
type files struct {
	content map[string][]byte
	hits    map[string]*atomic.Int32
	chunked bool
}

func serve(t *testing.T, content map[string][]byte, chunked bool) (*httptest.Server, *files) {
	f := &files{content: content, hits: map[string]*atomic.Int32{}, chunked: chunked}
	for p := range content {
		f.hits[p] = &atomic.Int32{}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := f.content[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f.hits[r.URL.Path].Add(1)
		if f.chunked { // no length: flushed before the end
			_, _ = w.Write(b[:1])
			w.(http.Flusher).Flush()
			_, _ = w.Write(b[1:])
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, f
}

func newTestFetcher(t *testing.T, max int64) (*Fetcher, *Cache) {
	c, err := OpenCache(t.TempDir(), max)
	require.NoError(t, err)
	return NewFetcher(c, true), c
}

func cachedFiles(t *testing.T, c *Cache) []string {
	ents, err := os.ReadDir(c.dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestFetchVerifiesAndCaches(t *testing.T) {
	data := []byte("x,y\n1,2\n")
	srv, fs := serve(t, map[string][]byte{"/train.csv": data}, false)
	f, c := newTestFetcher(t, 1<<20)
	ctx := context.Background()

	dst1 := filepath.Join(t.TempDir(), "a")
	n, err := f.Fetch(ctx, srv.URL+"/train.csv", sum(data), dst1, 100)
	require.NoError(t, err)
	require.Equal(t, int64(len(data)), n)
	got, err := os.ReadFile(dst1)
	require.NoError(t, err)
	require.Equal(t, data, got)
	fi, err := os.Stat(dst1)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o444), fi.Mode().Perm())

	// A second lease: served from the cache, no second request.
	dst2 := filepath.Join(t.TempDir(), "b")
	_, err = f.Fetch(ctx, srv.URL+"/train.csv", sum(data), dst2, 100)
	require.NoError(t, err)
	require.Equal(t, int32(1), fs.hits["/train.csv"].Load())
	got, err = os.ReadFile(dst2)
	require.NoError(t, err)
	require.Equal(t, data, got)
	require.Equal(t, []string{sum(data)}, cachedFiles(t, c))
	require.Equal(t, int64(len(data)), c.Bytes())
}

func TestFetchRefusesWrongSHA256(t *testing.T) {
	srv, _ := serve(t, map[string][]byte{"/x": []byte("tampered")}, false)
	f, c := newTestFetcher(t, 1<<20)
	dst := filepath.Join(t.TempDir(), "x")
	_, err := f.Fetch(context.Background(), srv.URL+"/x", sum([]byte("original")), dst, 100)
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "sha256 "+sum([]byte("tampered"))+", the manifest names "+sum([]byte("original")))
	require.NoFileExists(t, dst)
	require.Empty(t, cachedFiles(t, c))
	require.Zero(t, c.Bytes())
}

func TestFetchSizeCap(t *testing.T) {
	data := make([]byte, 1000)
	for _, chunked := range []bool{false, true} {
		t.Run("chunked="+strconv.FormatBool(chunked), func(t *testing.T) {
			srv, _ := serve(t, map[string][]byte{"/big": data}, chunked)
			f, c := newTestFetcher(t, 1<<20)
			_, err := f.Fetch(context.Background(), srv.URL+"/big", sum(data), filepath.Join(t.TempDir(), "big"), 999)
			require.ErrorIs(t, err, ErrInput)
			if chunked {
				require.ErrorContains(t, err, "more than the 999 bytes left")
			} else {
				require.ErrorContains(t, err, "1000 bytes, above the 999 left")
			}
			require.Empty(t, cachedFiles(t, c))
			// Exactly at the cap it fits.
			_, err = f.Fetch(context.Background(), srv.URL+"/big", sum(data), filepath.Join(t.TempDir(), "big"), 1000)
			require.NoError(t, err)
		})
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	a, b, cc := []byte("aaaa"), []byte("bbbb"), []byte("cccc")
	srv, fs := serve(t, map[string][]byte{"/a": a, "/b": b, "/c": cc}, false)
	f, c := newTestFetcher(t, 8) // two files fit
	ctx := context.Background()
	get := func(p string, data []byte) {
		_, err := f.Fetch(ctx, srv.URL+p, sum(data), filepath.Join(t.TempDir(), "x"), 100)
		require.NoError(t, err)
		time.Sleep(5 * time.Millisecond) // distinct use times
	}
	get("/a", a)
	get("/b", b)
	get("/a", a) // a is now more recent than b
	get("/c", cc)
	require.ElementsMatch(t, []string{sum(a), sum(cc)}, cachedFiles(t, c))
	require.Equal(t, int64(8), c.Bytes())
	get("/b", b) // downloaded again; a is now the least recent
	require.Equal(t, int32(2), fs.hits["/b"].Load())
	require.Equal(t, int32(1), fs.hits["/a"].Load())
	require.ElementsMatch(t, []string{sum(b), sum(cc)}, cachedFiles(t, c))

	// A reopened cache keeps the files and their order.
	c2, err := OpenCache(c.dir, 8)
	require.NoError(t, err)
	require.Equal(t, int64(8), c2.Bytes())
	require.True(t, c2.Has(sum(b)))
}

func TestFetchRefusesRedirectToOtherSchemes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	}))
	defer srv.Close()
	f, _ := newTestFetcher(t, 1<<20)
	_, err := f.Fetch(context.Background(), srv.URL+"/x", sumA, filepath.Join(t.TempDir(), "x"), 100)
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, `redirect to a "file" URL`)
}

func TestFetchRefusesPrivateAddresses(t *testing.T) {
	srv, fs := serve(t, map[string][]byte{"/x": []byte("abc")}, false)
	c, err := OpenCache(t.TempDir(), 1<<20)
	require.NoError(t, err)
	_, err = NewFetcher(c, false).Fetch(context.Background(), srv.URL+"/x", sumA, filepath.Join(t.TempDir(), "x"), 100)
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "127.0.0.1 is not a public address")
	require.Zero(t, fs.hits["/x"].Load())
}

const sumA = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" // sha256("abc")

// TestConcurrentFetchesDownloadOnce: leases asking for the same input at
// once share one download.
func TestConcurrentFetchesDownloadOnce(t *testing.T) {
	data := []byte("shared input")
	release := make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	f, _ := newTestFetcher(t, 1<<20)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := f.Fetch(context.Background(), srv.URL, sum(data), filepath.Join(t.TempDir(), "x"), 100)
			errs <- err
		}()
	}
	time.Sleep(100 * time.Millisecond)
	close(release)
	for range 4 {
		require.NoError(t, <-errs)
	}
	require.Equal(t, int32(1), hits.Load())
}
