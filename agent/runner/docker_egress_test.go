package runner

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/stretchr/testify/require"
)

// The firewall's exact rules: the resolvers' port 53, then every blocked
// range, other jobs, and everything to the host but replies.
func TestEgressRules(t *testing.T) {
	got := egressRules("br-x", []netip.Addr{netip.MustParseAddr("10.0.0.2")})
	require.Equal(t, `*filter
:IDLEGPU-EGRESS - [0:0]
:IDLEGPU-EGRESS-IN - [0:0]
-A IDLEGPU-EGRESS -d 10.0.0.2/32 -p udp -m udp --dport 53 -j RETURN
-A IDLEGPU-EGRESS -d 10.0.0.2/32 -p tcp -m tcp --dport 53 -j RETURN
-A IDLEGPU-EGRESS -d 0.0.0.0/8 -j DROP
-A IDLEGPU-EGRESS -d 10.0.0.0/8 -j DROP
-A IDLEGPU-EGRESS -d 100.64.0.0/10 -j DROP
-A IDLEGPU-EGRESS -d 127.0.0.0/8 -j DROP
-A IDLEGPU-EGRESS -d 169.254.0.0/16 -j DROP
-A IDLEGPU-EGRESS -d 172.16.0.0/12 -j DROP
-A IDLEGPU-EGRESS -d 192.168.0.0/16 -j DROP
-A IDLEGPU-EGRESS -d 198.18.0.0/15 -j DROP
-A IDLEGPU-EGRESS -d 224.0.0.0/4 -j DROP
-A IDLEGPU-EGRESS -d 240.0.0.0/4 -j DROP
-A IDLEGPU-EGRESS -o br-x -j DROP
-A IDLEGPU-EGRESS-IN -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN
-A IDLEGPU-EGRESS-IN -j DROP
COMMIT
`, got)
	require.NotContains(t, egressRules("br-x", nil), "--dport 53", "no resolver, no opening")
}

func TestEgressBlockedRanges(t *testing.T) {
	for _, a := range []string{"169.254.169.254", "10.1.2.3", "172.17.0.1", "192.168.1.1", "100.100.100.100", "127.0.0.1", "0.0.0.0", "224.0.0.251", "198.19.0.1", "255.255.255.255"} {
		require.True(t, blocked(netip.MustParseAddr(a)), a)
	}
	for _, a := range []string{"1.1.1.1", "8.8.8.8", "198.51.100.2", "203.0.113.9", "172.32.0.1", "100.128.0.1"} {
		require.False(t, blocked(netip.MustParseAddr(a)), a)
	}
}

func TestTBFArgs(t *testing.T) {
	require.Equal(t, []string{"qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", "8mbit", "burst", "32768", "latency", "50ms"},
		tbfArgs("eth0", 8), "a small rate gets the minimum burst")
	require.Equal(t, []string{"qdisc", "replace", "dev", "veth1", "root", "tbf", "rate", "10000mbit", "burst", "12500000", "latency", "50ms"},
		tbfArgs("veth1", 10000), "10 ms at the rate")
}

func TestParseContainerVeth(t *testing.T) {
	const lo = `1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00` + "\n"
	const eth0 = `42: eth0@if43: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default \    link/ether 02:42:ac:1f:fa:02 brd ff:ff:ff:ff:ff:ff link-netnsid 0` + "\n"
	v, err := parseContainerVeths(lo + eth0)
	require.NoError(t, err)
	require.Equal(t, []containerVeth{{name: "eth0", peerIndex: 43}}, v)

	v, err = parseContainerVeths(lo)
	require.NoError(t, err)
	require.Empty(t, v)
	v, err = parseContainerVeths(lo + eth0 + `44: eth1@if45: <BROADCAST> mtu 1500` + "\n")
	require.NoError(t, err)
	require.Equal(t, []containerVeth{{name: "eth0", peerIndex: 43}, {name: "eth1", peerIndex: 45}}, v, "a job on two networks")
}

// Only resolvers in blocked ranges need an opening, and loopback ones are
// queried from the host's namespace.
func TestForwardedResolvers(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte("# comment\nnameserver 10.255.255.53\nnameserver 8.8.8.8\nnameserver 127.0.0.53\nsearch example.com\n"), 0o600))
	require.NoError(t, os.WriteFile(b, []byte("nameserver 169.254.169.253\nnameserver fe80::1\nnameserver 10.255.255.53\nnameserver bogus\n"), 0o600))
	require.Equal(t, []netip.Addr{netip.MustParseAddr("10.255.255.53"), netip.MustParseAddr("169.254.169.253")},
		forwardedResolvers(a, filepath.Join(dir, "missing"), b))
	require.Empty(t, forwardedResolvers(filepath.Join(dir, "missing")))
}

// networkAPI is an in-memory Docker holding networks by name.
type networkAPI struct {
	networks map[string]network.Inspect
	created  []network.CreateOptions
}

func (n *networkAPI) NetworkCreate(_ context.Context, name string, o network.CreateOptions) (network.CreateResponse, error) {
	n.created = append(n.created, o)
	n.networks[name] = network.Inspect{Name: name, ID: "id-" + name, Driver: o.Driver, Options: o.Options, Labels: o.Labels, EnableIPv6: *o.EnableIPv6}
	return network.CreateResponse{ID: "id-" + name}, nil
}

func (n *networkAPI) NetworkInspect(_ context.Context, name string, _ network.InspectOptions) (network.Inspect, error) {
	info, ok := n.networks[name]
	if !ok {
		return network.Inspect{}, cerrdefs.ErrNotFound
	}
	return info, nil
}

func (n *networkAPI) NetworkRemove(_ context.Context, id string) error {
	for name, info := range n.networks {
		if info.ID == id {
			delete(n.networks, name)
			return nil
		}
	}
	return cerrdefs.ErrNotFound
}

// The network is made once with ICC and IPv6 off on the named bridge; one of
// the same name with other settings is refused, never used.
func TestEgressNetworkSettings(t *testing.T) {
	api := &networkAPI{networks: map[string]network.Inspect{}}
	e := &EgressNetwork{cli: api, opts: EgressOptions{Name: "egress", Bridge: "br-egress", Subnet: "172.30.0.0/24"}}
	ctx := context.Background()
	require.NoError(t, e.ensureNetwork(ctx))
	require.NoError(t, e.ensureNetwork(ctx))
	require.Len(t, api.created, 1, "created once")
	c := api.created[0]
	require.Equal(t, "bridge", c.Driver)
	require.False(t, *c.EnableIPv6)
	require.Equal(t, map[string]string{bridgeNameOption: "br-egress", bridgeICCOption: "false", bridgeMasqOption: "true"}, c.Options)
	require.Equal(t, map[string]string{egressLabel: "true"}, c.Labels)
	require.Equal(t, []network.IPAMConfig{{Subnet: "172.30.0.0/24"}}, c.IPAM.Config)

	good := api.networks["egress"]
	for name, spoil := range map[string]func(*network.Inspect){
		"not ours": func(i *network.Inspect) { i.Labels = nil },
		"other bridge": func(i *network.Inspect) {
			i.Options = map[string]string{bridgeNameOption: "docker0", bridgeICCOption: "false"}
		},
		"icc on":        func(i *network.Inspect) { i.Options = map[string]string{bridgeNameOption: "br-egress"} },
		"ipv6":          func(i *network.Inspect) { i.EnableIPv6 = true },
		"other driver":  func(i *network.Inspect) { i.Driver = "macvlan" },
		"internal only": func(i *network.Inspect) { i.Internal = true },
	} {
		info := good
		info.Options = map[string]string{}
		for k, v := range good.Options {
			info.Options[k] = v
		}
		spoil(&info)
		require.ErrorContains(t, e.checkNetwork(info), "exists with other settings", name)
	}
}

// A job without egress has no network; one with egress is on the egress
// network, and refused where the runner has none.
func TestDockerEgressNetworkMode(t *testing.T) {
	spec := Spec{LeaseID: 7, Image: "busybox", Command: []string{"true"}}
	withEgress := NewDocker(newFakeDocker(), DockerOptions{LogDir: t.TempDir(),
		Egress: &EgressNetwork{opts: EgressOptions{Name: "idlegpu-egress"}}})
	_, hc := withEgress.containerConfig(spec)
	require.Equal(t, container.NetworkMode("none"), hc.NetworkMode)
	spec.EgressMbps = 50
	_, hc = withEgress.containerConfig(spec)
	require.Equal(t, container.NetworkMode("idlegpu-egress"), hc.NetworkMode)

	fake := newFakeDocker()
	without := NewDocker(fake, limited(DockerOptions{LogDir: t.TempDir()}))
	_, err := without.Start(context.Background(), spec)
	require.ErrorIs(t, err, ErrNoEgress)
	require.EqualError(t, err, "this runner offers no internet egress: lease 7 asks for 50 Mbit/s")
	require.Empty(t, fake.containers, "nothing created")
}
