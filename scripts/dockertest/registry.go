package dockertest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The Docker image manifest v2 schema 2 media types, what a daemon of any
// version pulls.
const (
	mediaManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaConfig   = "application/vnd.docker.container.image.v1+json"
	mediaLayer    = "application/vnd.docker.image.rootfs.diff.tar.gzip"
)

// Registry serves one image, the busybox of BusyboxLayer, read-only over
// plain HTTP on loopback (Docker trusts 127.0.0.0/8 registries without TLS
// by default), and returns its reference pinned by digest:
// "127.0.0.1:<port>/<repo>@sha256:<manifest digest>". A daemon pulls it as
// it pulls from any registry, and the image then has that RepoDigest.
func Registry(t testing.TB, repo string) string {
	t.Helper()
	layer := BusyboxLayer(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(layer); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH, "os": "linux",
		"config": map[string]any{"Env": []string{"PATH=/bin"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{digestOf(layer)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": mediaManifest,
		"config": map[string]any{"mediaType": mediaConfig, "size": len(config), "digest": digestOf(config)},
		"layers": []map[string]any{{"mediaType": mediaLayer, "size": gz.Len(), "digest": digestOf(gz.Bytes())}},
	})
	if err != nil {
		t.Fatal(err)
	}
	blobs := map[string][]byte{digestOf(config): config, digestOf(gz.Bytes()): gz.Bytes()}
	mdigest := digestOf(manifest)
	prefix := "/v2/" + repo + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == "/v2/" {
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		var body []byte
		switch {
		case rest == "manifests/"+mdigest || rest == "manifests/latest":
			body = manifest
			w.Header().Set("Content-Type", mediaManifest)
			w.Header().Set("Docker-Content-Digest", mdigest)
		case strings.HasPrefix(rest, "blobs/"):
			if body, ok = blobs[strings.TrimPrefix(rest, "blobs/")]; !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Docker-Content-Digest", strings.TrimPrefix(rest, "blobs/"))
		default:
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", zeroTime, bytes.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://") + "/" + repo + "@" + mdigest
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// zeroTime leaves Last-Modified out of ServeContent's answers.
var zeroTime = time.Time{}
