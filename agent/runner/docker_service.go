package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
)

const (
	// DefaultServiceNetwork is the Docker network of jobs that serve
	// inbound traffic through the agent's ingress.
	DefaultServiceNetwork = "idlegpu-service"
	// DefaultServiceBridge is its bridge interface on the host, fixed so the
	// firewall rules can name it (at most 15 characters).
	DefaultServiceBridge = "idlegpu-svc0"
	// serviceLabel marks the network as the agent's.
	serviceLabel = "idlegpu.service"
	// ServiceLabel is the container label holding a job's service port, so
	// a restarted agent finds an adopted job's service as it was started.
	ServiceLabel = "idlegpu.service-port"
	// serviceForwardChain drops whatever a service job sends through the
	// host; serviceInputChain what it sends to the host itself, but for
	// replies to the connections the host (the ingress) opened.
	serviceForwardChain = "IDLEGPU-SERVICE"
	serviceInputChain   = "IDLEGPU-SERVICE-IN"
)

// ErrNoService is returned for a job with a service port from a runner that
// has no service network (none configured, or its firewall could not be
// installed): it is refused, never run reachable by other jobs or able to
// reach the host.
var ErrNoService = errors.New("runner has no service network")

// ServiceOptions configure the service network.
type ServiceOptions struct {
	// Name is the Docker network ("": DefaultServiceNetwork).
	Name string
	// Bridge is its host interface ("": DefaultServiceBridge).
	Bridge string
	// Subnet is its IPv4 subnet, e.g. "172.31.0.0/24" ("": one of Docker's pools).
	Subnet string
}

// ServiceNetwork is the Docker bridge network through which the agent's
// ingress reaches jobs' services, and nothing else passes: internal (no
// route out), no inter-container traffic, no IPv6, and the agent's iptables
// rules dropping whatever a job sends through or to the host except replies
// to connections the host opened. A job's service is reached at its address
// on this network (ServiceAddr), never published on the host's ports.
type ServiceNetwork struct {
	cli    EgressAPI
	opts   ServiceOptions
	fw     *firewall
	subnet netip.Prefix
}

// NewServiceNetwork makes the service network and installs its firewall;
// both are idempotent, and what a crashed agent left is reused or replaced.
// It fails with ErrNoFirewall when iptables cannot be used: the runner must
// then refuse jobs with a service.
func NewServiceNetwork(ctx context.Context, cli EgressAPI, opts ServiceOptions) (*ServiceNetwork, error) {
	if opts.Name == "" {
		opts.Name = DefaultServiceNetwork
	}
	if opts.Bridge == "" {
		opts.Bridge = DefaultServiceBridge
	}
	if len(opts.Bridge) > 15 {
		return nil, fmt.Errorf("service bridge name %q is longer than 15 characters", opts.Bridge)
	}
	fw := &firewall{bridge: opts.Bridge, forward: serviceForwardChain, input: serviceInputChain, rules: serviceRules(opts.Bridge)}
	if err := fw.checkTools(ctx); err != nil {
		return nil, err
	}
	s := &ServiceNetwork{cli: cli, opts: opts, fw: fw}
	if err := s.ensureNetwork(ctx); err != nil {
		return nil, err
	}
	if err := fw.install(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// NewServiceNetworkFromEnv is NewServiceNetwork over a client of the daemon
// the environment names (as NewDockerFromEnv).
func NewServiceNetworkFromEnv(ctx context.Context, opts ServiceOptions) (*ServiceNetwork, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, err
	}
	s, err := NewServiceNetwork(ctx, cli, opts)
	if err != nil {
		cli.Close()
		return nil, err
	}
	return s, nil
}

// serviceRules is the iptables-restore input (for --noflush) for the
// service network's chains: nothing a job sends is forwarded (not to the
// internet, not to another job on the bridge, whatever br_netfilter does),
// and the host takes only replies to what it opened.
func serviceRules(bridge string) string {
	var b strings.Builder
	b.WriteString("*filter\n")
	fmt.Fprintf(&b, ":%s - [0:0]\n", serviceForwardChain)
	fmt.Fprintf(&b, ":%s - [0:0]\n", serviceInputChain)
	fmt.Fprintf(&b, "-A %s -j DROP\n", serviceForwardChain)
	fmt.Fprintf(&b, "-A %s -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN\n", serviceInputChain)
	fmt.Fprintf(&b, "-A %s -j DROP\n", serviceInputChain)
	b.WriteString("COMMIT\n")
	return b.String()
}

// Name is the Docker network jobs with a service are attached to.
func (s *ServiceNetwork) Name() string { return s.opts.Name }

// Subnet is the network's IPv4 subnet: the only addresses the ingress
// forwards to.
func (s *ServiceNetwork) Subnet() netip.Prefix { return s.subnet }

// Close removes the network and its firewall rules; while jobs are still
// attached (the agent stops and leaves them to be adopted) both are kept.
func (s *ServiceNetwork) Close(ctx context.Context) error {
	info, err := s.cli.NetworkInspect(ctx, s.opts.Name, network.InspectOptions{})
	switch {
	case cerrdefs.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("inspect network %s: %w", s.opts.Name, err)
	case len(info.Containers) > 0:
		slog.Warn("service network: jobs still attached, keeping the network and its firewall", "network", s.opts.Name, "jobs", len(info.Containers))
		return nil
	default:
		if err := s.cli.NetworkRemove(ctx, info.ID); err != nil && !cerrdefs.IsNotFound(err) {
			return fmt.Errorf("remove network %s: %w", s.opts.Name, err)
		}
	}
	return s.fw.remove(ctx)
}

// ensureNetwork creates the network, or checks the one there, and reads
// its subnet.
func (s *ServiceNetwork) ensureNetwork(ctx context.Context) error {
	info, err := s.cli.NetworkInspect(ctx, s.opts.Name, network.InspectOptions{})
	if cerrdefs.IsNotFound(err) {
		ipv6 := false
		create := network.CreateOptions{
			Driver:     "bridge",
			Internal:   true,
			EnableIPv6: &ipv6,
			Options: map[string]string{
				bridgeNameOption: s.opts.Bridge,
				bridgeICCOption:  "false",
				bridgeMasqOption: "false",
			},
			Labels: map[string]string{serviceLabel: "true"},
		}
		if s.opts.Subnet != "" {
			create.IPAM = &network.IPAM{Driver: "default", Config: []network.IPAMConfig{{Subnet: s.opts.Subnet}}}
		}
		if _, err := s.cli.NetworkCreate(ctx, s.opts.Name, create); err != nil {
			return fmt.Errorf("create network %s: %w", s.opts.Name, err)
		}
		info, err = s.cli.NetworkInspect(ctx, s.opts.Name, network.InspectOptions{})
	}
	if err != nil {
		return fmt.Errorf("inspect network %s: %w", s.opts.Name, err)
	}
	if err := s.checkNetwork(info); err != nil {
		return err
	}
	for _, c := range info.IPAM.Config {
		if p, err := netip.ParsePrefix(c.Subnet); err == nil && p.Addr().Is4() {
			s.subnet = p.Masked()
			return nil
		}
	}
	return fmt.Errorf("network %s has no IPv4 subnet", s.opts.Name)
}

// checkNetwork refuses a network of the same name that is not the agent's
// or whose isolation differs.
func (s *ServiceNetwork) checkNetwork(info network.Inspect) error {
	var bad []string
	if info.Labels[serviceLabel] != "true" {
		bad = append(bad, "not labelled "+serviceLabel+"=true")
	}
	if info.Driver != "bridge" {
		bad = append(bad, "driver "+info.Driver)
	}
	if info.Options[bridgeNameOption] != s.opts.Bridge {
		bad = append(bad, fmt.Sprintf("bridge %q", info.Options[bridgeNameOption]))
	}
	if info.Options[bridgeICCOption] != "false" {
		bad = append(bad, "inter-container traffic on")
	}
	if !info.Internal {
		bad = append(bad, "not internal")
	}
	if info.EnableIPv6 {
		bad = append(bad, "IPv6 on")
	}
	if len(bad) > 0 {
		return fmt.Errorf("network %s exists with other settings (%s): remove it", s.opts.Name, strings.Join(bad, ", "))
	}
	return nil
}

// ServiceSubnet is the runner's service network's subnet; false when it
// has none (jobs with a service are refused).
func (d *Docker) ServiceSubnet() (netip.Prefix, bool) {
	if d.opts.Service == nil {
		return netip.Prefix{}, false
	}
	return d.opts.Service.Subnet(), true
}

// ServiceAddr is where the ingress reaches the service of a lease's running
// job: its address on the service network and the port it was started with
// (ServiceLabel). ErrNotRunning when the lease has no running container;
// ErrNoService when the job has no service or the runner no service network.
func (d *Docker) ServiceAddr(ctx context.Context, leaseID uint64) (netip.AddrPort, error) {
	info, err := d.cli.ContainerInspect(ctx, ContainerName(leaseID))
	if cerrdefs.IsNotFound(err) {
		return netip.AddrPort{}, fmt.Errorf("lease %d: %w", leaseID, ErrNotRunning)
	}
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("inspect container of lease %d: %w", leaseID, err)
	}
	if info.Config == nil || info.Config.Labels[LeaseLabel] != strconv.FormatUint(leaseID, 10) ||
		info.State == nil || !info.State.Running {
		return netip.AddrPort{}, fmt.Errorf("lease %d: %w", leaseID, ErrNotRunning)
	}
	port, err := strconv.ParseUint(info.Config.Labels[ServiceLabel], 10, 16)
	if err != nil || port == 0 {
		return netip.AddrPort{}, fmt.Errorf("%w: lease %d's job serves nothing", ErrNoService, leaseID)
	}
	if d.opts.Service == nil {
		return netip.AddrPort{}, fmt.Errorf("%w: lease %d", ErrNoService, leaseID)
	}
	if info.NetworkSettings != nil {
		if ep := info.NetworkSettings.Networks[d.opts.Service.Name()]; ep != nil {
			if a, err := netip.ParseAddr(ep.IPAddress); err == nil && d.opts.Service.Subnet().Contains(a) {
				return netip.AddrPortFrom(a, uint16(port)), nil
			}
		}
	}
	return netip.AddrPort{}, fmt.Errorf("%w: lease %d's container has no address on %s", ErrNoService, leaseID, d.opts.Service.Name())
}
