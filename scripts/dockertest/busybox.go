package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// BusyboxTag is the tag ImportBusybox gives its image.
const BusyboxTag = "idlegpu-test/busybox:latest"

// busyboxApplets are linked to /bin/busybox in the image: what the tests'
// jobs and the renters' guide example run.
var busyboxApplets = []string{"sh", "echo", "sleep", "env", "id", "dd", "seq", "touch", "cat", "ls", "wc", "cut", "tr", "sha256sum", "printf", "mkdir", "rm", "head", "tail", "grep", "awk", "expr"}

// BusyboxLayer is a one-binary root file system as an uncompressed tar:
// busybox (static) with sh, echo, sleep and the other applets linked to
// it, /tmp as runc mounts it (1777), and fixed timestamps, so the same
// busybox gives the same bytes. It skips the test without a static busybox.
func BusyboxLayer(t testing.TB) []byte {
	t.Helper()
	const bin = "/bin/busybox"
	if err := staticELF(bin); err != nil {
		t.Skipf("no static busybox to build the test image (apt-get install busybox-static): %v", err)
	}
	body, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, data []byte) {
		h.ModTime = time.Unix(0, 0)
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if len(data) > 0 {
			if _, err := tw.Write(data); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, d := range []string{"bin/", "dev/", "proc/", "sys/", "etc/"} {
		add(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755}, nil)
	}
	add(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777}, nil)
	add(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(body))}, body)
	for _, l := range busyboxApplets {
		add(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + l, Linkname: "busybox", Mode: 0o777}, nil)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ImportBusybox imports BusyboxLayer as BusyboxTag straight from a tarball
// (no registry) and returns its id "sha256:<hex>". An imported image has
// no RepoDigest, so tests run it by id with the runner's RequireDigest off;
// Registry serves it pinned by digest instead.
func ImportBusybox(t testing.TB, cli *client.Client) string {
	t.Helper()
	ctx := context.Background()
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: bytes.NewReader(BusyboxLayer(t)), SourceName: "-"}, BusyboxTag, image.ImportOptions{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	err = StreamError(rc)
	rc.Close()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	info, err := cli.ImageInspect(ctx, BusyboxTag)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.ID, "sha256:") || len(info.RepoDigests) != 0 {
		t.Fatalf("imported image %s has registry digests %v", info.ID, info.RepoDigests)
	}
	t.Cleanup(func() {
		// Containers of a concurrent run on a shared daemon may still use it.
		_, _ = cli.ImageRemove(context.Background(), info.ID, image.RemoveOptions{Force: false, PruneChildren: true})
	})
	return info.ID
}

// StreamError reads a pull's or an import's progress stream to its end
// and returns the error it reports, if any (a failed pull still answers
// 200).
func StreamError(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var msg struct {
			Error string `json:"error"`
		}
		if err := dec.Decode(&msg); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if msg.Error != "" {
			return errors.New(msg.Error)
		}
	}
}

// staticELF fails unless path is an ELF binary with no program interpreter.
func staticELF(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked", path)
		}
	}
	return nil
}
