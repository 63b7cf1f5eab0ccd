package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
)

const (
	// DefaultEgressNetwork is the Docker network of jobs allowed the internet.
	DefaultEgressNetwork = "idlegpu-egress"
	// DefaultEgressBridge is its bridge interface on the host, fixed so the
	// firewall rules can name it (at most 15 characters).
	DefaultEgressBridge = "idlegpu-egress0"
	// egressLabel marks the network as the agent's.
	egressLabel = "idlegpu.egress"
	// Docker's bridge driver options.
	bridgeNameOption = "com.docker.network.bridge.name"
	bridgeICCOption  = "com.docker.network.bridge.enable_icc"
	bridgeMasqOption = "com.docker.network.bridge.enable_ip_masquerade"
)

// ErrNoEgress is returned for a job asking for internet egress from a runner
// that has no egress network (none configured, or its firewall could not be
// installed).
var ErrNoEgress = errors.New("this runner offers no internet egress")

// EgressAPI is the part of the Docker Engine API the egress network uses;
// *client.Client implements it.
type EgressAPI interface {
	NetworkCreate(ctx context.Context, name string, options network.CreateOptions) (network.CreateResponse, error)
	NetworkInspect(ctx context.Context, networkID string, options network.InspectOptions) (network.Inspect, error)
	NetworkRemove(ctx context.Context, networkID string) error
}

var _ EgressAPI = (*client.Client)(nil)

// EgressOptions configure the egress network.
type EgressOptions struct {
	// Name is the Docker network ("": DefaultEgressNetwork).
	Name string
	// Bridge is its host interface ("": DefaultEgressBridge).
	Bridge string
	// Subnet is its IPv4 subnet, e.g. "172.30.0.0/24" ("": one of Docker's pools).
	Subnet string
	// Resolvers are the DNS servers Docker's embedded resolver forwards jobs'
	// queries to (nil: the nameservers of the host's resolv.conf files).
	Resolvers []netip.Addr
}

// EgressNetwork is the Docker bridge network through which jobs reach the
// internet and nothing else: no inter-container traffic, no IPv6, and the
// agent's iptables rules dropping whatever the jobs send to the host itself
// or to private, shared, loopback, link-local (cloud metadata), multicast
// and reserved ranges. Each job's traffic is shaped to its rate with tc.
type EgressNetwork struct {
	cli  EgressAPI
	opts EgressOptions
	fw   *firewall
}

// NewEgressNetwork makes the egress network and installs its firewall; both
// are idempotent, and what a crashed agent left is reused or replaced. It
// fails with ErrNoFirewall when iptables cannot be used (not root, no
// binary, no netfilter) and ErrNoShaper without tc, ip or nsenter: the
// runner must then refuse egress.
func NewEgressNetwork(ctx context.Context, cli EgressAPI, opts EgressOptions) (*EgressNetwork, error) {
	if opts.Name == "" {
		opts.Name = DefaultEgressNetwork
	}
	if opts.Bridge == "" {
		opts.Bridge = DefaultEgressBridge
	}
	if len(opts.Bridge) > 15 {
		return nil, fmt.Errorf("egress bridge name %q is longer than 15 characters", opts.Bridge)
	}
	if opts.Resolvers == nil {
		opts.Resolvers = forwardedResolvers("/etc/resolv.conf", "/run/systemd/resolve/resolv.conf")
	}
	if err := checkShapingTools(); err != nil {
		return nil, err
	}
	fw, err := newFirewall(ctx, opts.Bridge, opts.Resolvers)
	if err != nil {
		return nil, err
	}
	e := &EgressNetwork{cli: cli, opts: opts, fw: fw}
	// The network first: until this returns the runner attaches no job to
	// it, and a failure here leaves the rules of jobs still running from an
	// earlier agent as they were.
	if err := e.ensureNetwork(ctx); err != nil {
		return nil, err
	}
	if err := fw.install(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// NewEgressNetworkFromEnv is NewEgressNetwork over a client of the daemon
// the environment names (as NewDockerFromEnv).
func NewEgressNetworkFromEnv(ctx context.Context, opts EgressOptions) (*EgressNetwork, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, err
	}
	e, err := NewEgressNetwork(ctx, cli, opts)
	if err != nil {
		cli.Close()
		return nil, err
	}
	return e, nil
}

// Name is the Docker network jobs with egress are attached to.
func (e *EgressNetwork) Name() string { return e.opts.Name }

// Close removes the network and the firewall rules. While jobs are still
// attached (the agent stops and leaves them to be adopted), both are kept:
// removing the rules would leave those jobs unfiltered.
func (e *EgressNetwork) Close(ctx context.Context) error {
	info, err := e.cli.NetworkInspect(ctx, e.opts.Name, network.InspectOptions{})
	switch {
	case cerrdefs.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("inspect network %s: %w", e.opts.Name, err)
	case len(info.Containers) > 0:
		slog.Warn("egress network: jobs still attached, keeping the network and its firewall", "network", e.opts.Name, "jobs", len(info.Containers))
		return nil
	default:
		if err := e.cli.NetworkRemove(ctx, info.ID); err != nil && !cerrdefs.IsNotFound(err) {
			return fmt.Errorf("remove network %s: %w", e.opts.Name, err)
		}
	}
	return e.fw.remove(ctx)
}

// ensureNetwork creates the network, or checks that the one there has the
// settings the firewall relies on.
func (e *EgressNetwork) ensureNetwork(ctx context.Context) error {
	info, err := e.cli.NetworkInspect(ctx, e.opts.Name, network.InspectOptions{})
	if err == nil {
		return e.checkNetwork(info)
	}
	if !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("inspect network %s: %w", e.opts.Name, err)
	}
	ipv6 := false
	create := network.CreateOptions{
		Driver:     "bridge",
		EnableIPv6: &ipv6,
		Options: map[string]string{
			bridgeNameOption: e.opts.Bridge,
			bridgeICCOption:  "false",
			bridgeMasqOption: "true",
		},
		Labels: map[string]string{egressLabel: "true"},
	}
	if e.opts.Subnet != "" {
		create.IPAM = &network.IPAM{Driver: "default", Config: []network.IPAMConfig{{Subnet: e.opts.Subnet}}}
	}
	if _, err := e.cli.NetworkCreate(ctx, e.opts.Name, create); err != nil {
		return fmt.Errorf("create network %s: %w", e.opts.Name, err)
	}
	return nil
}

// checkNetwork refuses a network of the same name that is not the agent's
// or whose bridge, inter-container or IPv6 settings differ.
func (e *EgressNetwork) checkNetwork(info network.Inspect) error {
	var bad []string
	if info.Labels[egressLabel] != "true" {
		bad = append(bad, "not labelled "+egressLabel+"=true")
	}
	if info.Driver != "bridge" {
		bad = append(bad, "driver "+info.Driver)
	}
	if info.Options[bridgeNameOption] != e.opts.Bridge {
		bad = append(bad, fmt.Sprintf("bridge %q", info.Options[bridgeNameOption]))
	}
	if info.Options[bridgeICCOption] != "false" {
		bad = append(bad, "inter-container traffic on")
	}
	if info.EnableIPv6 {
		bad = append(bad, "IPv6 on")
	}
	if info.Internal {
		bad = append(bad, "internal")
	}
	if len(bad) > 0 {
		return fmt.Errorf("network %s exists with other settings (%s): remove it", e.opts.Name, strings.Join(bad, ", "))
	}
	return nil
}

// shape shapes the job whose init is pid to mbps in each direction.
func (e *EgressNetwork) shape(ctx context.Context, pid int, mbps uint32) error {
	return shapeJob(ctx, pid, e.opts.Bridge, mbps)
}

// forwardedResolvers are the IPv4 nameservers of the resolv.conf files that
// lie in blocked ranges and that Docker's embedded resolver queries from the
// job's namespace: loopback ones (a local stub) it queries from the host's.
func forwardedResolvers(paths ...string) []netip.Addr {
	out := []netip.Addr{}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 || fields[0] != "nameserver" {
				continue
			}
			a, err := netip.ParseAddr(fields[1])
			if err != nil || !a.Is4() || a.IsLoopback() || !blocked(a) || containsAddr(out, a) {
				continue
			}
			out = append(out, a)
		}
		f.Close()
	}
	return out
}

func blocked(a netip.Addr) bool {
	for _, p := range egressBlockedRanges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func containsAddr(list []netip.Addr, a netip.Addr) bool {
	for _, b := range list {
		if b == a {
			return true
		}
	}
	return false
}

// networkMode is a job's first network: the egress network when it asks
// for egress, else the service network when it serves, else none at all. A
// job that does both is connected to the service network too
// (connectService).
func (d *Docker) networkMode(spec Spec) container.NetworkMode {
	if spec.EgressMbps > 0 && d.opts.Egress != nil {
		return container.NetworkMode(d.opts.Egress.Name())
	}
	if spec.ServicePort > 0 && d.opts.Service != nil {
		return container.NetworkMode(d.opts.Service.Name())
	}
	return "none"
}

// connectService attaches a created job with both egress and a service to
// the service network as well, before it starts (the API's oldest versions
// take one network at create).
func (d *Docker) connectService(ctx context.Context, spec Spec, id string) error {
	if spec.ServicePort == 0 || spec.EgressMbps == 0 {
		return nil
	}
	if err := d.cli.NetworkConnect(ctx, d.opts.Service.Name(), id, nil); err != nil {
		return fmt.Errorf("connect lease %d to %s: %w", spec.LeaseID, d.opts.Service.Name(), err)
	}
	return nil
}

// validateEgress refuses egress when the runner has no egress network.
func (d *Docker) validateEgress(spec Spec) error {
	if spec.EgressMbps > 0 && d.opts.Egress == nil {
		return fmt.Errorf("%w: lease %d asks for %d Mbit/s", ErrNoEgress, spec.LeaseID, spec.EgressMbps)
	}
	return nil
}

// shapeEgress shapes a started job's traffic to its EgressMbps. It runs after
// the container starts (its interfaces exist only then): the firewall holds
// from the first packet, the rate from a few milliseconds in.
func (d *Docker) shapeEgress(ctx context.Context, spec Spec, id string) error {
	if spec.EgressMbps == 0 {
		return nil
	}
	if d.opts.Egress == nil {
		return fmt.Errorf("%w: lease %d has %d Mbit/s of egress to shape", ErrNoEgress, spec.LeaseID, spec.EgressMbps)
	}
	info, err := d.cli.ContainerInspect(ctx, id)
	if err != nil {
		return fmt.Errorf("inspect container of lease %d: %w", spec.LeaseID, err)
	}
	if info.State == nil || !info.State.Running || info.State.Pid <= 0 {
		return nil // already ended: nothing left to shape
	}
	if err := d.opts.Egress.shape(ctx, info.State.Pid, spec.EgressMbps); err != nil {
		if info, ierr := d.cli.ContainerInspect(ctx, id); ierr == nil && info.State != nil && !info.State.Running {
			return nil // it ended while being shaped
		}
		return fmt.Errorf("shape egress of lease %d: %w", spec.LeaseID, err)
	}
	return nil
}

// egressOfLabel is the egress a job was started with (EgressLabel; none:
// 0). A job with egress on a runner that has no egress network cannot be
// shaped: an error.
func egressOfLabel(labels map[string]string) (uint32, error) {
	v, ok := labels[EgressLabel]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("label %s=%q: want a positive number of Mbit/s", EgressLabel, v)
	}
	return uint32(n), nil
}
