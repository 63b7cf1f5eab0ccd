package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os/exec"
	"slices"
	"strings"
)

// The agent's own iptables chains: everything it installs is in them, plus
// one jump per parent chain, so removing them never touches anyone else's
// rules.
const (
	// egressForwardChain filters what jobs send through the host (jumped to
	// from DOCKER-USER, which Docker evaluates before its own accept rules).
	egressForwardChain = "IDLEGPU-EGRESS"
	// egressInputChain filters what jobs send to the host itself.
	egressInputChain = "IDLEGPU-EGRESS-IN"
	// dockerUserChain is Docker's chain for user rules, first in FORWARD.
	dockerUserChain = "DOCKER-USER"
)

// egressBlockedRanges are the IPv4 destinations a job may never reach: the
// private, shared (carrier NAT), loopback, link-local (cloud metadata at
// 169.254.169.254), multicast, reserved, "this network" and benchmarking
// ranges. The job's own bridge subnet is private too, so other jobs are in
// it.
var egressBlockedRanges = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// PublicAddress says whether a is one a job, or the agent on a renter's
// behalf (fetching inputs), may connect to: a global unicast address
// outside egressBlockedRanges, and for IPv6 not unique-local or link-local.
func PublicAddress(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return false
	}
	for _, p := range egressBlockedRanges {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// ErrNoFirewall is returned when the egress rules cannot be installed: jobs
// asking for egress are then refused, never run unfiltered.
var ErrNoFirewall = errors.New("egress firewall unavailable")

// egressRules is the iptables-restore input (for --noflush) that declares
// and fills the agent's chains for bridge. Declaring a chain in a restore
// empties it within the same commit, so re-installing over a running agent's
// rules never leaves jobs unfiltered. resolvers are the host's DNS servers
// in blocked ranges: Docker's embedded resolver (127.0.0.11 in the job)
// forwards queries to them from the job's network namespace, so they cross
// FORWARD and need port 53, and only port 53, opened.
func egressRules(bridge string, resolvers []netip.Addr) string {
	var b strings.Builder
	b.WriteString("*filter\n")
	fmt.Fprintf(&b, ":%s - [0:0]\n", egressForwardChain)
	fmt.Fprintf(&b, ":%s - [0:0]\n", egressInputChain)
	for _, r := range resolvers {
		for _, proto := range []string{"udp", "tcp"} {
			fmt.Fprintf(&b, "-A %s -d %s/32 -p %s -m %s --dport 53 -j RETURN\n", egressForwardChain, r, proto, proto)
		}
	}
	for _, p := range egressBlockedRanges {
		fmt.Fprintf(&b, "-A %s -d %s -j DROP\n", egressForwardChain, p)
	}
	// Another job on the bridge, whatever its subnet (bridged frames cross
	// FORWARD where br_netfilter is loaded, as Docker loads it).
	fmt.Fprintf(&b, "-A %s -o %s -j DROP\n", egressForwardChain, bridge)
	// The host itself, on any of its addresses: only replies to what the host
	// opened. Docker's embedded DNS listens inside the job's namespace, so it
	// needs no opening here.
	fmt.Fprintf(&b, "-A %s -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN\n", egressInputChain)
	fmt.Fprintf(&b, "-A %s -j DROP\n", egressInputChain)
	b.WriteString("COMMIT\n")
	return b.String()
}

// egressJump is a rule in a parent chain sending the bridge's traffic to one
// of the agent's chains.
type egressJump struct{ parent, chain string }

// rule is the jump's iptables arguments after "-A/-C/-D parent".
func (j egressJump) rule(bridge string) []string { return []string{"-i", bridge, "-j", j.chain} }

// firewall installs and removes one network's rules with the iptables
// binaries: the egress network's (egressRules) or the service network's
// (serviceRules), each in chains of its own.
type firewall struct {
	bridge string
	// forward and input are the network's chains; rules the
	// iptables-restore input that fills them.
	forward, input string
	rules          string
	// ip6 is set when ip6tables exists: IPv6 is off on the network, and the
	// bridge's IPv6 is dropped as well in case something turns it on.
	ip6 bool
}

// newFirewall is the egress network's firewall (egressRules), once
// iptables is known to work (checkTools).
func newFirewall(ctx context.Context, bridge string, resolvers []netip.Addr) (*firewall, error) {
	f := &firewall{bridge: bridge, forward: egressForwardChain, input: egressInputChain, rules: egressRules(bridge, resolvers)}
	return f, f.checkTools(ctx)
}

// checkTools checks that iptables works (it needs root and the kernel's
// netfilter) and whether ip6tables does.
func (f *firewall) checkTools(ctx context.Context) error {
	for _, bin := range []string{"iptables", "iptables-restore"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%w: no %s binary: %v", ErrNoFirewall, bin, err)
		}
	}
	if _, err := iptables(ctx, "iptables", "-S", "INPUT"); err != nil {
		return fmt.Errorf("%w: %v", ErrNoFirewall, err)
	}
	if _, err := exec.LookPath("ip6tables"); err == nil {
		_, err := iptables(ctx, "ip6tables", "-S", "INPUT")
		f.ip6 = err == nil
	}
	return nil
}

// jumps are where the agent's chains hang: DOCKER-USER when Docker manages
// iptables (Docker keeps it first in FORWARD across restarts), else FORWARD.
func (f *firewall) jumps(ctx context.Context) ([]egressJump, error) {
	forward := "FORWARD"
	exists, err := chainExists(ctx, "iptables", dockerUserChain)
	if err != nil {
		return nil, err
	}
	if exists {
		forward = dockerUserChain
	} else {
		slog.Warn("egress network: no DOCKER-USER chain, Docker does not manage iptables: jobs' egress is filtered from FORWARD but not masqueraded")
	}
	return []egressJump{{forward, f.forward}, {"INPUT", f.input}}, nil
}

// install (re)writes the chains atomically, then makes each jump exist once
// and removes jumps to them that a crashed agent left for another bridge.
func (f *firewall) install(ctx context.Context) error {
	if err := restore(ctx, "iptables-restore", f.rules); err != nil {
		return err
	}
	want, err := f.jumps(ctx)
	if err != nil {
		return err
	}
	for _, j := range want {
		if err := removeJumps(ctx, "iptables", j.chain, f.bridge, j.parent); err != nil {
			return err
		}
	}
	for _, j := range want {
		if err := ensureJump(ctx, "iptables", j.parent, j.rule(f.bridge)); err != nil {
			return err
		}
	}
	if f.ip6 {
		rules := fmt.Sprintf("*filter\n:%s - [0:0]\n-A %s -j DROP\nCOMMIT\n", f.forward, f.forward)
		if err := restore(ctx, "ip6tables-restore", rules); err != nil {
			return err
		}
		if err := removeJumps(ctx, "ip6tables", f.forward, f.bridge, "FORWARD", "INPUT"); err != nil {
			return err
		}
		for _, parent := range []string{"FORWARD", "INPUT"} {
			if err := ensureJump(ctx, "ip6tables", parent, []string{"-i", f.bridge, "-j", f.forward}); err != nil {
				return err
			}
		}
	}
	return nil
}

// remove deletes every jump to the agent's chains and the chains themselves.
func (f *firewall) remove(ctx context.Context) error {
	var errs []error
	for _, chain := range []string{f.forward, f.input} {
		errs = append(errs, removeJumps(ctx, "iptables", chain, ""), deleteChain(ctx, "iptables", chain))
	}
	if f.ip6 {
		errs = append(errs, removeJumps(ctx, "ip6tables", f.forward, ""), deleteChain(ctx, "ip6tables", f.forward))
	}
	return errors.Join(errs...)
}

// ensureJump inserts rule at the top of parent unless it is there.
func ensureJump(ctx context.Context, bin, parent string, rule []string) error {
	if _, err := iptables(ctx, bin, append([]string{"-C", parent}, rule...)...); err == nil {
		return nil
	}
	_, err := iptables(ctx, bin, append([]string{"-I", parent, "1"}, rule...)...)
	return err
}

// removeJumps deletes, from every chain of the filter table, the rules that
// jump to chain, except the jumps for keepBridge from keepParents.
func removeJumps(ctx context.Context, bin, chain, keepBridge string, keepParents ...string) error {
	out, err := iptables(ctx, bin, "-S")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 4 || fields[0] != "-A" || !jumpsTo(fields, chain) {
			continue
		}
		if slices.Contains(keepParents, fields[1]) && strings.Join(fields[2:], " ") == strings.Join([]string{"-i", keepBridge, "-j", chain}, " ") {
			continue
		}
		if _, err := iptables(ctx, bin, append([]string{"-D"}, fields[1:]...)...); err != nil {
			return err
		}
	}
	return nil
}

// jumpsTo tells whether an `iptables -S` rule's target is chain.
func jumpsTo(fields []string, chain string) bool {
	for i := 0; i+1 < len(fields); i++ {
		if (fields[i] == "-j" || fields[i] == "-g") && fields[i+1] == chain {
			return true
		}
	}
	return false
}

// deleteChain flushes and deletes chain; one already gone is not an error.
func deleteChain(ctx context.Context, bin, chain string) error {
	if exists, err := chainExists(ctx, bin, chain); err != nil || !exists {
		return err
	}
	if _, err := iptables(ctx, bin, "-F", chain); err != nil {
		return err
	}
	_, err := iptables(ctx, bin, "-X", chain)
	return err
}

// chainExists tells whether the filter table has chain. It reads the whole
// table: asked for a missing chain, iptables-nft fails with a misleading
// "incompatible" instead of "no chain".
func chainExists(ctx context.Context, bin, chain string) (bool, error) {
	out, err := iptables(ctx, bin, "-S")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && (f[0] == "-N" || f[0] == "-P") && f[1] == chain {
			return true, nil
		}
	}
	return false, nil
}

// iptables runs an iptables binary on the filter table, waiting for the
// xtables lock that Docker and others take.
func iptables(ctx context.Context, bin string, args ...string) (string, error) {
	return runTool(ctx, bin, append([]string{"-w", "-t", "filter"}, args...)...)
}

// restore applies rules with iptables-restore, leaving other chains as they are.
func restore(ctx context.Context, bin, rules string) error {
	cmd := exec.CommandContext(ctx, bin, "-w", "--noflush")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", bin, err, strings.TrimSpace(string(out)))
	}
	return nil
}
