package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// tbfLatency bounds how long a packet waits in a job's shaper before being
// dropped; it sizes the queue.
const tbfLatency = "50ms"

// tbfArgs are the tc arguments shaping an interface's sending to mbps with a
// token bucket. The burst is 10 ms at the rate, at least 32 KiB: it must
// hold a packet and what one kernel tick (HZ 100 at the lowest) releases.
func tbfArgs(dev string, mbps uint32) []string {
	burst := max(uint64(mbps)*125_000/100, 32<<10)
	return []string{"qdisc", "replace", "dev", dev, "root", "tbf",
		"rate", strconv.FormatUint(uint64(mbps), 10) + "mbit",
		"burst", strconv.FormatUint(burst, 10), "latency", tbfLatency}
}

// ErrNoShaper is returned when the tools that shape jobs' traffic are
// missing: jobs asking for egress are then refused, never run unshaped.
var ErrNoShaper = errors.New("egress shaping unavailable")

// checkShapingTools finds the binaries shapeJob runs.
func checkShapingTools() error {
	for _, bin := range []string{"nsenter", "ip", "tc"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%w: no %s binary (util-linux, iproute2): %v", ErrNoShaper, bin, err)
		}
	}
	return nil
}

// vethPeerPattern reads `ip -o link` lines of a network namespace: the index
// after "@if" is the veth's peer in the host's namespace.
var vethPeerPattern = regexp.MustCompile(`^\d+: ([^:@\s]+)@if(\d+):`)

// containerVeth is a job's veth interface: its name in the job's network
// namespace and the host-side peer's index.
type containerVeth struct {
	name      string
	peerIndex int
}

// parseContainerVeths finds the veths in `ip -o link` output: one per
// network the job is on (lo is not a veth).
func parseContainerVeths(out string) ([]containerVeth, error) {
	var found []containerVeth
	for _, line := range strings.Split(out, "\n") {
		m := vethPeerPattern.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		idx, err := strconv.Atoi(m[2])
		if err != nil {
			return nil, err
		}
		found = append(found, containerVeth{name: m[1], peerIndex: idx})
	}
	return found, nil
}

// shapeJob shapes both directions of the job whose init is pid to mbps: its
// sending on its own interface (inside its namespace: the job, with no
// capabilities, cannot change it) and its receiving on the host-side veth.
// The interface shaped is the job's one veth whose host side is a port of
// bridge (a job that also serves has a second one, on the service network,
// which only the ingress reaches). Re-applying replaces the shapers.
func shapeJob(ctx context.Context, pid int, bridge string, mbps uint32) error {
	netns := "--net=/proc/" + strconv.Itoa(pid) + "/ns/net"
	out, err := runTool(ctx, "nsenter", netns, "ip", "-o", "link", "show")
	if err != nil {
		return err
	}
	veths, err := parseContainerVeths(out)
	if err != nil {
		return fmt.Errorf("job's interfaces (pid %d): %w", pid, err)
	}
	var veth containerVeth
	var host string
	ports := 0
	for _, v := range veths {
		h, err := hostLinkByIndex(v.peerIndex)
		if err != nil {
			return err
		}
		if master, err := os.Readlink(filepath.Join("/sys/class/net", h, "master")); err == nil && filepath.Base(master) == bridge {
			veth, host = v, h
			ports++
		}
	}
	if ports != 1 {
		return fmt.Errorf("job's interfaces (pid %d): want one port of %s among its %d veths, found %d", pid, bridge, len(veths), ports)
	}
	if _, err := runTool(ctx, "nsenter", append([]string{netns, "tc"}, tbfArgs(veth.name, mbps)...)...); err != nil {
		return err
	}
	_, err = runTool(ctx, "tc", tbfArgs(host, mbps)...)
	return err
}

// hostLinkByIndex is the name of the host interface with ifindex idx.
func hostLinkByIndex(idx int) (string, error) {
	entries, err := os.ReadDir("/sys/class/net")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/sys/class/net", e.Name(), "ifindex"))
		if err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(idx) {
			return e.Name(), nil
		}
	}
	return "", fmt.Errorf("no host interface with index %d (is the agent in the Docker host's network namespace?)", idx)
}

// runTool runs a command and returns its standard output.
func runTool(ctx context.Context, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", bin, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
