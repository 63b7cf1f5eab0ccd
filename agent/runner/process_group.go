package runner

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processGroup is a job's process group: what the runner has without
// cgroups. A child that calls setsid leaves it.
type processGroup struct{ pgid int }

func (g processGroup) pids() ([]int, error) { return groupMembers(g.pgid) }

func (g processGroup) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-g.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

func (g processGroup) kill() error { return g.signal(syscall.SIGKILL) }

// alive: an adopted group runs while any of its processes does.
func (g processGroup) alive() bool { return groupAlive(g.pgid) }

// drain: a started group's job ends with its leader, as it always has.
func (g processGroup) drain() error { return nil }

// procStat is what the runners read from /proc/PID/stat.
type procStat struct {
	state byte // R, S, D, Z (zombie), X (dead), …
	ppid  int
	pgrp  int
}

// live is false for a process that has exited but was not reaped yet.
func (s procStat) live() bool { return s.state != 'Z' && s.state != 'X' }

// readProcStat reads the state, parent and process group of a process. The
// command name, in parentheses, may itself hold spaces and parentheses: the
// fields are read after the last ')'.
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp}, true
}

// groupMembers lists the live (not zombie) processes of a process group.
func groupMembers(pgid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.pgrp == pgid && st.live() {
			out = append(out, pid)
		}
	}
	return out, nil
}

// groupAlive tells whether a live process is left in the group: the leader,
// else any member. A /proc it cannot read counts as alive, so a job is never
// declared ended on a read error.
func groupAlive(pgid int) bool {
	if st, ok := readProcStat(pgid); ok && st.pgrp == pgid && st.live() {
		return true
	}
	pids, err := groupMembers(pgid)
	return err != nil || len(pids) > 0
}

// groupRunsLease tells whether a live process of the group carries the
// lease's IDLEGPU_LEASE_ID: the leader first, else any other member (the
// leader may have exited while its children run on).
func groupRunsLease(pgid int, leaseID uint64) bool {
	entry := "IDLEGPU_LEASE_ID=" + strconv.FormatUint(leaseID, 10)
	if st, ok := readProcStat(pgid); ok && st.pgrp == pgid && st.live() && hasEnv(pgid, entry) {
		return true
	}
	pids, _ := groupMembers(pgid)
	for _, pid := range pids {
		if pid != pgid && hasEnv(pid, entry) {
			return true
		}
	}
	return false
}

// hasEnv tells whether a process's initial environment holds entry exactly.
func hasEnv(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if string(kv) == entry {
			return true
		}
	}
	return false
}
