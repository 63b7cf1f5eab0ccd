package runner

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
)

// JobUID and JobGID are the unprivileged user and group a job runs as
// unless its spec allows root: nobody/nogroup on Debian, owning nothing on
// the host, so a job that breaks out of its container holds no files.
const (
	JobUID = 65534
	JobGID = 65534
)

// ScratchTarget is where a job's writable scratch directory (on the host,
// under the runner's work dir) appears; TmpTarget is a tmpfs counted in the
// job's memory.
const (
	ScratchTarget = "/scratch"
	TmpTarget     = "/tmp"
)

// reservedTargets are paths a spec's mount may not cover or sit under: the
// runner's own mounts and the kernel's.
var reservedTargets = []string{ScratchTarget, TmpTarget, "/dev", "/proc", "/sys"}

// leaseDir is the lease's directory under the runner's work dir (its log
// ring and scratch).
func (d *Docker) leaseDir(leaseID uint64) string {
	return filepath.Join(d.opts.LogDir, fmt.Sprintf("lease-%d", leaseID))
}

// scratchDir is the host side of a lease's /scratch.
func (d *Docker) scratchDir(leaseID uint64) string {
	return filepath.Join(d.leaseDir(leaseID), "scratch")
}

// validateMounts refuses mounts that are not plain absolute paths, that
// would shadow the root, the runner's or the kernel's mounts, or that
// name one target twice.
func validateMounts(spec Spec) error {
	seen := map[string]bool{}
	for _, m := range spec.Mounts {
		if !filepath.IsAbs(m.Source) || filepath.Clean(m.Source) != m.Source {
			return fmt.Errorf("%w: lease %d mounts %q: the source must be a clean absolute path", ErrInvalidSpec, spec.LeaseID, m.Source)
		}
		if !path.IsAbs(m.Target) || path.Clean(m.Target) != m.Target || m.Target == "/" || strings.ContainsAny(m.Target, ":,") {
			return fmt.Errorf("%w: lease %d mounts onto %q: the target must be a clean absolute path other than /", ErrInvalidSpec, spec.LeaseID, m.Target)
		}
		for _, r := range reservedTargets {
			if m.Target == r || strings.HasPrefix(m.Target, r+"/") {
				return fmt.Errorf("%w: lease %d mounts onto %s, which the runner reserves", ErrInvalidSpec, spec.LeaseID, m.Target)
			}
		}
		if seen[m.Target] {
			return fmt.Errorf("%w: lease %d mounts onto %s twice", ErrInvalidSpec, spec.LeaseID, m.Target)
		}
		seen[m.Target] = true
	}
	return nil
}

// writableDirs are the host directories the job can write: its scratch
// and the spec's writable mounts. The disk watchdog counts them.
func (d *Docker) writableDirs(spec Spec) []string {
	dirs := []string{d.scratchDir(spec.LeaseID)}
	for _, m := range spec.Mounts {
		if !m.ReadOnly {
			dirs = append(dirs, m.Source)
		}
	}
	return dirs
}

// prepareSandbox creates the lease's scratch and hands every writable
// directory to the job's user.
func (d *Docker) prepareSandbox(spec Spec) error {
	if err := os.MkdirAll(d.scratchDir(spec.LeaseID), 0o700); err != nil {
		return fmt.Errorf("scratch of lease %d: %w", spec.LeaseID, err)
	}
	for _, dir := range d.writableDirs(spec) {
		st, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("writable mount of lease %d: %w", spec.LeaseID, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("%w: lease %d: writable mount %s is not a directory", ErrInvalidSpec, spec.LeaseID, dir)
		}
		if err := ownForJob(dir, spec.AllowRoot); err != nil {
			return fmt.Errorf("hand %s to the job of lease %d: %w", dir, spec.LeaseID, err)
		}
	}
	return nil
}

// ownForJob makes dir writable by the job. An unprivileged job gets it
// as its own (mode 0700: no other uid of the host reads it); a job as the
// image's user, whose uid the runner does not know, gets a sticky
// world-writable directory. An agent that is not root cannot chown: it
// falls back to the sticky mode and says so.
func ownForJob(dir string, allowRoot bool) error {
	if !allowRoot {
		err := os.Chown(dir, JobUID, JobGID)
		if err == nil {
			return os.Chmod(dir, 0o700)
		}
		if !errors.Is(err, os.ErrPermission) {
			return err
		}
		slog.Warn("docker runner: not root, so a job's directory is made world-writable instead of the job user's", "dir", dir)
	}
	return os.Chmod(dir, os.ModePerm|os.ModeSticky)
}

// sandbox sets the job's user, root filesystem, /tmp, /scratch and the
// spec's mounts on the container's configuration.
func (d *Docker) sandbox(spec Spec, config *container.Config, hc *container.HostConfig) {
	if !spec.AllowRoot {
		config.User = fmt.Sprintf("%d:%d", JobUID, JobGID)
		hc.ReadonlyRootfs = true
		// The unprivileged user has no home in the image: its files go
		// where it can write. A manifest's own values win.
		config.Env = withDefaultEnv(config.Env, "HOME", ScratchTarget)
	}
	config.Env = withDefaultEnv(config.Env, "TMPDIR", TmpTarget)
	// The daemon writes the mode in octal as given: 0o1777 is the sticky,
	// world-writable mode of a /tmp (Go's os.ModeSticky is another bit).
	// Where the image has a /tmp, runc gives the tmpfs that directory's
	// mode instead (1777 in standard images).
	hc.Mounts = append(hc.Mounts,
		mount.Mount{Type: mount.TypeTmpfs, Target: TmpTarget, TmpfsOptions: &mount.TmpfsOptions{SizeBytes: memoryShare(spec), Mode: 0o1777}},
		mount.Mount{Type: mount.TypeBind, Source: d.scratchDir(spec.LeaseID), Target: ScratchTarget})
	for _, m := range spec.Mounts {
		hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly})
	}
}

// withDefaultEnv adds k=v unless env sets k.
func withDefaultEnv(env []string, k, v string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, k+"=") {
			return env
		}
	}
	return append(env, k+"="+v)
}

// memoryShare is the size of each of a job's memory-backed filesystems
// (/dev/shm and /tmp): 1 GiB per GPU, within a quarter of the memory limit
// so that both together leave the job half its memory.
func memoryShare(spec Spec) int64 {
	if spec.MemoryBytes <= 0 {
		return DefaultShmBytes
	}
	return min(DefaultShmBytes*int64(max(len(spec.GPUs), 1)), spec.MemoryBytes/4)
}
