package runner

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// cgroupJobsDir, at the cgroup v2 root, holds every agent's job cgroups.
	cgroupJobsDir = "idlegpu-jobs"
	// drainTimeout bounds how long a job's leftover processes are killed
	// and waited for before its end is reported anyway.
	drainTimeout = 10 * time.Second
)

// jobCgroupParent makes the cgroup v2 directory that holds the process
// runner's job cgroups: idlegpu-jobs/agent-H at the cgroup v2 root, H a
// digest of the agent's job directory, so two agents on a host (or tests)
// never take each other's jobs while a restarted agent finds its own. It
// fails where cgroup v2 is not mounted or not writable (not root, v1 only).
// The directory is probed, then removed while empty: it is made again for
// the first job, and removed with the last, so agents that come and go (in
// tests) leave nothing behind.
func jobCgroupParent(agentDir string) (string, error) {
	root, err := cgroup2Root()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(agentDir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(root, cgroupJobsDir, "agent-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	// Moving a process needs write access to cgroup.procs, not just mkdir.
	f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		return "", fmt.Errorf("%s is not a usable cgroup: %w", dir, err)
	}
	_ = f.Close()
	_ = os.Remove(dir) // fails while jobs of an earlier run are in it
	return dir, nil
}

// cgroup2Root is where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup on
// a unified host, /sys/fs/cgroup/unified on a hybrid one.
func cgroup2Root() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	var found []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "36 35 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw": the
		// mount point is the fifth field, the type the first after " - ".
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, typ := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(typ) > 0 && typ[0] == "cgroup2" {
			found = append(found, unescapeMountPath(fields[4]))
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if slices.Contains(found, "/sys/fs/cgroup") {
		return "/sys/fs/cgroup", nil
	}
	if len(found) == 0 {
		return "", errors.New("no cgroup v2 hierarchy is mounted")
	}
	return found[0], nil
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// jobCgroup is one job's cgroup: every process the job forks, daemonised
// or not, stays in it, and a job running as another user cannot leave it.
type jobCgroup struct {
	dir string
	// leader is the job's first process: the job runs while it does.
	leader int
}

func leaseCgroupDir(parent string, leaseID uint64) string {
	return filepath.Join(parent, fmt.Sprintf("lease-%d", leaseID))
}

// createJobCgroup makes the lease's cgroup and opens it for clone3's
// CLONE_INTO_CGROUP, so the job starts inside it with no window to fork
// outside. An empty cgroup left from an earlier job is reused; one with
// live processes is refused (they are that job: adopt or stop it first).
func createJobCgroup(parent string, leaseID uint64) (string, *os.File, error) {
	dir := leaseCgroupDir(parent, leaseID)
	// The parent may be removed by the last job's drain between the two
	// mkdirs: then make it again.
	var err error
	for range 3 {
		if err = os.MkdirAll(parent, 0o755); err != nil {
			return "", nil, err
		}
		if err = os.Mkdir(dir, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
			err = nil
			break
		}
	}
	if err != nil {
		return "", nil, err
	}
	pids, err := cgroupProcs(dir)
	if err != nil {
		return "", nil, err
	}
	if len(pids) > 0 {
		return "", nil, fmt.Errorf("cgroup %s still holds processes %v of an earlier job", dir, pids)
	}
	fd, err := os.Open(dir)
	if err != nil {
		return "", nil, err
	}
	return dir, fd, nil
}

// cgroupProcs lists a cgroup's processes (none once it is removed). The
// kernel lists live processes only: an exited one leaves at exit.
func cgroupProcs(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%s/cgroup.procs: %q", dir, f)
		}
		out = append(out, pid)
	}
	return out, nil
}

// removeJobCgroup removes an empty job cgroup, and the agent's parent
// with the last one.
func removeJobCgroup(dir string) error {
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	_ = os.Remove(filepath.Dir(dir)) // fails while other jobs are in it
	return nil
}

// writeCgroupFile writes a control file; it never creates one.
func writeCgroupFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *jobCgroup) pids() ([]int, error) { return cgroupProcs(c.dir) }

// signal sends sig to every process of the cgroup.
func (c *jobCgroup) signal(sig syscall.Signal) error {
	pids, err := c.pids()
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	return nil
}

// kill SIGKILLs every process of the cgroup: cgroup.kill (Linux 5.14) does
// it atomically; before it the cgroup is frozen, so nothing forks between
// the listing and the signals, and thawed after.
func (c *jobCgroup) kill() error {
	err := writeCgroupFile(filepath.Join(c.dir, "cgroup.kill"), "1")
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	freeze := filepath.Join(c.dir, "cgroup.freeze")
	frozen := writeCgroupFile(freeze, "1") == nil
	err = c.signal(syscall.SIGKILL)
	if frozen {
		_ = writeCgroupFile(freeze, "0")
	}
	return err
}

// alive tells whether the job's leader still runs. A cgroup that cannot be
// read counts as alive, so a job is never declared ended on a read error.
func (c *jobCgroup) alive() bool {
	pids, err := c.pids()
	return err != nil || slices.Contains(pids, c.leader)
}

// drain ends what is left of a job whose leader is gone: a job's processes
// do not outlive it. It kills the cgroup until it is empty, then removes it.
func (c *jobCgroup) drain() error {
	deadline := time.Now().Add(drainTimeout)
	for {
		pids, err := c.pids()
		if err == nil && len(pids) == 0 {
			return removeJobCgroup(c.dir)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s still holds %v after %s (err %v)", c.dir, pids, drainTimeout, err)
		}
		if err == nil {
			if err := c.kill(); err != nil {
				return err
			}
		}
		time.Sleep(stoppingPoll)
	}
}
