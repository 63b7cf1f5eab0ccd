package runner

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seqOutput is what `seq 1 n` prints.
func seqOutput(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// catSpec is a job that prints out: it cats a copy of it from a
// read-only mount, in large writes, so the test's time goes to the copy.
func catSpec(t *testing.T, lease uint64, out []byte) Spec {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "out"), out, 0o644))
	return Spec{LeaseID: lease, Command: []string{"cat", "/in/out"}, Mounts: []Mount{{Source: dir, Target: "/in", ReadOnly: true}}}
}

// logBytes reads a job's whole log.
func logBytes(t *testing.T, j Job) []byte {
	t.Helper()
	r, err := j.Logs()
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return b
}

// TestDockerSandbox runs jobs on a real daemon (see dockerDaemon) and checks
// what the sandbox enforces: the user, the read-only root, the writable
// places, the disk watchdog, the bounded lossless log and the exit codes.
func TestDockerSandbox(t *testing.T) {
	cli := dockerDaemon(t)
	img := importBusybox(t, cli)
	ctx := context.Background()
	base := uint64(rand.Int64N(1_000_000_000))*10 + 1_000_000_000_0
	newRunner := func(t *testing.T, edit func(o *DockerOptions)) *Docker {
		o := limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, DiskCheckInterval: 200 * time.Millisecond})
		if edit != nil {
			edit(&o)
		}
		return NewDocker(cli, o)
	}
	run := func(t *testing.T, d *Docker, spec Spec) Job {
		t.Helper()
		spec.Image = img
		j, err := d.Start(ctx, spec)
		require.NoError(t, err)
		waitDone(t, j, 120*time.Second)
		return j
	}

	t.Run("an unprivileged job writes only to /scratch, /tmp and its writable mounts", func(t *testing.T) {
		d := newRunner(t, nil)
		in, out := t.TempDir(), t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(in, "data"), []byte("input"), 0o644))
		require.NoError(t, os.Chmod(in, 0o755))
		script := `id -u; id -g; echo "home=$HOME tmpdir=$TMPDIR"
touch /root-file 2>/dev/null && echo root-writable || echo root-read-only
touch /in/x 2>/dev/null && echo in-writable || echo in-read-only
cat /in/data; echo
echo s > /scratch/s && echo t > /tmp/t && echo o > /out/o && echo wrote`
		j := run(t, d, Spec{LeaseID: base + 1, Command: []string{"sh", "-c", script},
			Mounts: []Mount{{Source: in, Target: "/in", ReadOnly: true}, {Source: out, Target: "/out"}}})
		require.Equal(t, Status{Exited: true, ExitCode: 0}, j.Status(), logs(t, j))
		require.Equal(t, "65534\n65534\nhome=/scratch tmpdir=/tmp\nroot-read-only\nin-read-only\ninput\nwrote\n", logs(t, j))
		b, err := os.ReadFile(filepath.Join(out, "o"))
		require.NoError(t, err)
		require.Equal(t, "o\n", string(b))
		_, err = os.Stat(d.scratchDir(base + 1))
		require.True(t, os.IsNotExist(err), "the scratch goes with the container: %v", err)
		_, err = os.Stat(filepath.Join(d.leaseDir(base+1), "job.log"))
		require.NoError(t, err, "the log stays")
	})

	t.Run("a job allowed root runs as the image's user on a writable root", func(t *testing.T) {
		d := newRunner(t, nil)
		j := run(t, d, Spec{LeaseID: base + 2, AllowRoot: true, Command: []string{"sh", "-c", "id -u; touch /root-file && echo root-writable; echo s > /scratch/s && echo scratch-writable"}})
		require.Equal(t, Status{Exited: true, ExitCode: 0}, j.Status())
		require.Equal(t, "0\nroot-writable\nscratch-writable\n", logs(t, j))
	})

	t.Run("a job writing past its disk limit is killed and says why; one within it is not", func(t *testing.T) {
		d := newRunner(t, nil)
		over := run(t, d, Spec{LeaseID: base + 3, DiskBytes: 100 << 20, MemoryBytes: 512 << 20,
			Command: []string{"sh", "-c", "dd if=/dev/zero of=/scratch/big bs=1M count=200 2>/dev/null; sleep 60"}})
		st := over.Status()
		require.True(t, st.Exited)
		require.Equal(t, 137, st.ExitCode, "killed")
		m := regexp.MustCompile(`^disk limit exceeded: (\d+) > 104857600 bytes$`).FindStringSubmatch(st.Err)
		require.NotNil(t, m, "err %q", st.Err)
		n, _ := strconv.ParseInt(m[1], 10, 64)
		require.Greater(t, n, int64(100<<20))

		within := run(t, d, Spec{LeaseID: base + 4, DiskBytes: 100 << 20, MemoryBytes: 512 << 20,
			Command: []string{"sh", "-c", "dd if=/dev/zero of=/scratch/some bs=1M count=50 2>/dev/null; sleep 1"}})
		require.Equal(t, Status{Exited: true, ExitCode: 0}, within.Status())
	})

	t.Run("a writable root counts against the disk limit", func(t *testing.T) {
		d := newRunner(t, nil)
		j := run(t, d, Spec{LeaseID: base + 5, AllowRoot: true, DiskBytes: 100 << 20, MemoryBytes: 512 << 20,
			Command: []string{"sh", "-c", "dd if=/dev/zero of=/big bs=1M count=200 2>/dev/null; sleep 60"}})
		require.Contains(t, j.Status().Err, "disk limit exceeded: ")
	})

	t.Run("40 MB of output under a 64 MiB cap is kept byte for byte", func(t *testing.T) {
		d := newRunner(t, func(o *DockerOptions) { o.LogMaxBytes = 64 << 20 })
		want := seqOutput(5_200_000)
		require.Greater(t, len(want), 40_000_000)
		j := run(t, d, catSpec(t, base+6, want))
		require.Equal(t, Status{Exited: true, ExitCode: 0}, j.Status())
		got := logBytes(t, j)
		require.Equal(t, len(want), len(got))
		require.True(t, bytes.Equal(want, got), "the log differs from the output")
	})

	t.Run("100 MB of output under a 16 MiB cap keeps exactly its last part", func(t *testing.T) {
		d := newRunner(t, func(o *DockerOptions) { o.LogMaxBytes = 16 << 20 })
		want := seqOutput(12_400_000)
		require.Greater(t, len(want), 100_000_000)
		j := run(t, d, catSpec(t, base+7, want))
		require.Equal(t, Status{Exited: true, ExitCode: 0}, j.Status())
		got := logBytes(t, j)
		require.LessOrEqual(t, len(got), 16<<20)
		require.Greater(t, len(got), 8<<20, "the newer half at least")
		require.True(t, bytes.HasSuffix(want, got), "the log is not the output's last %d bytes", len(got))
		var onDisk int64
		for _, name := range []string{logRingPrevious, logRingCurrent} {
			st, err := os.Stat(filepath.Join(d.leaseDir(base+7), name))
			require.NoError(t, err)
			onDisk += st.Size()
		}
		require.LessOrEqual(t, onDisk, int64(16<<20))
	})

	t.Run("no exit code while running; the real one after", func(t *testing.T) {
		d := newRunner(t, nil)
		for code, lease := range map[int]uint64{0: base + 8, 3: base + 9} {
			j, err := d.Start(ctx, Spec{LeaseID: lease, Image: img, Command: []string{"sh", "-c", "sleep 1; exit " + strconv.Itoa(code)}})
			require.NoError(t, err)
			require.Equal(t, Status{Running: true}, j.Status(), "running: not exited, no code")
			waitDone(t, j, 60*time.Second)
			require.Equal(t, Status{Exited: true, ExitCode: code}, j.Status())
		}
	})

	t.Run("a job refuses to start without limits the provider did not give up", func(t *testing.T) {
		d := NewDocker(cli, DockerOptions{LogDir: t.TempDir(), CPUCoresPerGPU: 1, MemoryBytesPerGPU: 256 << 20, MaxImageBytes: 1 << 40})
		_, err := d.Start(ctx, Spec{LeaseID: base + 10, Image: img, Command: []string{"true"}})
		require.ErrorIs(t, err, ErrNoLimit)
		require.True(t, strings.HasSuffix(err.Error(), "would run without a disk limit"), err.Error())
		requireGone(t, cli, ContainerName(base+10))
	})
}
