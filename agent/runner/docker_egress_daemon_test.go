package runner

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/dockertest"
)

// The test's egress network; the fake internet is dockertest's.
const (
	egressTestNet     = "idlegpu-egress-test"
	egressTestBr      = "idlegpu-egt0"
	egressTestSubnet  = "172.31.250.0/24"
	egressTestGateway = "172.31.250.1"
)

// TestDockerEgress runs jobs on the egress network of a real dockerd that
// manages iptables, against a fake internet in a network namespace.
func TestDockerEgress(t *testing.T) {
	cli := dockertest.IptablesDaemon(t, dockertest.InternetPrivate, egressTestBr)
	img := importBusybox(t, cli)
	dockertest.FakeInternet(t)
	ctx := context.Background()

	egress := newTestEgress(t, cli)
	t.Cleanup(func() {
		if err := egress.Close(context.Background()); err != nil {
			t.Errorf("close egress network: %v", err)
		}
		_ = egress.fw.remove(context.Background()) // even if jobs were left attached
	})
	d := NewDocker(cli, limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, Egress: egress}))

	t.Run("reaches the internet and nothing else", func(t *testing.T) {
		inet := &dockertest.Pong{}
		go inet.Serve(dockertest.ListenInternet(t, "0.0.0.0:8080"))
		host := &dockertest.Pong{}
		go host.Serve(listenHost(t, "0.0.0.0:18081"))
		go host.Serve(listenHost(t, egressTestGateway+":18082"))

		// Another job, listening: the host reaches it (so it listens), the first job must not.
		peer, err := d.Start(ctx, Spec{LeaseID: 9101, Image: img, EgressMbps: 100,
			Command: []string{"busybox", "nc", "-ll", "-p", "9000", "-e", "/bin/env"}})
		require.NoError(t, err)
		defer func() { require.NoError(t, peer.Stop(ctx)) }()
		peerIP := containerIP(t, cli, ContainerName(9101))
		require.Eventually(t, func() bool {
			out, err := dialRead(peerIP + ":9000")
			return err == nil && strings.Contains(out, "IDLEGPU_LEASE_ID=9101")
		}, 10*time.Second, 100*time.Millisecond, "the host reaches the peer job's listener")

		targets := []string{
			dockertest.InternetPublic + ":8080",
			dockertest.InternetPrivate + ":8080",
			dockertest.InternetMetadata + ":8080",
			egressTestGateway + ":18081",
			egressTestGateway + ":18082",
			dockertest.InternetHost + ":18081",
			peerIP + ":9000",
		}
		out := runProbe(t, d, Spec{LeaseID: 9102, Image: img, EgressMbps: 100}, targets)
		want := map[string]string{}
		for _, tg := range targets {
			want[tg] = "blocked"
		}
		want[dockertest.InternetPublic+":8080"] = "reached"
		require.Equal(t, want, out)
		require.Equal(t, []string{dockertest.InternetPublic + ":8080"}, inet.Reached(), "only the public address was connected to")
		require.Empty(t, host.Reached(), "nothing reached the host's listeners")

		// The control: without the agent's rules the same job reaches them
		// all but the peer, which Docker's inter-container setting still stops.
		require.NoError(t, egress.fw.remove(ctx))
		out = runProbe(t, d, Spec{LeaseID: 9108, Image: img, EgressMbps: 100}, targets)
		require.NoError(t, egress.fw.install(ctx))
		for _, tg := range targets {
			want[tg] = "reached"
		}
		want[peerIP+":9000"] = "blocked"
		require.Equal(t, want, out, "unfiltered")
		require.Len(t, host.Reached(), 3)
	})

	t.Run("resolves names through the host's resolver", func(t *testing.T) {
		dns := &fakeResolver{answer: netip.MustParseAddr(dockertest.InternetPublic).As4()}
		dns.serve(t, "0.0.0.0:53")
		inet := &dockertest.Pong{}
		go inet.Serve(dockertest.ListenInternet(t, "0.0.0.0:8081"))
		out := runProbe(t, d, Spec{LeaseID: 9107, Image: img, EgressMbps: 100},
			[]string{"public.example.test:8081", dockertest.InternetPrivate + ":8081"})
		require.Equal(t, map[string]string{"public.example.test:8081": "reached", dockertest.InternetPrivate + ":8081": "blocked"}, out,
			"port 53 of the resolver is open, nothing else of it")
		require.Contains(t, dns.Asked(), "public.example.test. TypeA")
		require.Equal(t, []string{dockertest.InternetPublic + ":8081"}, inet.Reached())
	})

	t.Run("no egress, no network", func(t *testing.T) {
		j, err := d.Start(ctx, Spec{LeaseID: 9103, Image: img,
			Command: []string{"sh", "-c", "busybox ls /sys/class/net; sleep 60"}})
		require.NoError(t, err)
		info, err := cli.ContainerInspect(ctx, ContainerName(9103))
		require.NoError(t, err)
		require.Equal(t, container.NetworkMode("none"), info.HostConfig.NetworkMode)
		require.Eventually(t, func() bool { return jobLog(t, j) == "lo\n" }, 10*time.Second, 100*time.Millisecond,
			"only loopback: got %q", jobLog(t, j))
		require.NoError(t, j.Stop(ctx))
	})

	t.Run("shaped to the lease's rate", func(t *testing.T) {
		const mbps, size = 8, 3 << 20
		up := sinkOrSource(dockertest.ListenInternet(t, "0.0.0.0:8090"), 0)
		down := sinkOrSource(dockertest.ListenInternet(t, "0.0.0.0:8091"), size)
		script := fmt.Sprintf("sleep 1; busybox dd if=/dev/zero bs=65536 count=%d 2>/dev/null | busybox nc -w 5 %s 8090; "+
			"busybox nc -w 5 %s 8091 </dev/null | busybox wc -c", size/65536, dockertest.InternetPublic, dockertest.InternetPublic)
		j, err := d.Start(ctx, Spec{LeaseID: 9104, Image: img, EgressMbps: mbps, Command: []string{"sh", "-c", script}})
		require.NoError(t, err)
		defer func() { require.NoError(t, j.Stop(ctx)) }()
		qdiscs := egressExec(t, "tc", "qdisc", "show", "dev", hostVeth(t))
		require.Contains(t, qdiscs, "tbf", "the host side shapes what the job receives")
		require.Contains(t, qdiscs, "rate 8Mbit")

		expected := time.Duration(float64(size*8) / (mbps * 1e6) * float64(time.Second)) // 3.1 s
		for name, c := range map[string]<-chan bulkTransfer{"upload": up, "download": down} {
			select {
			case tr := <-c:
				require.Equal(t, int64(size), tr.bytes, name)
				t.Logf("%s of %d bytes at %d Mbit/s: %v (unshaped it takes milliseconds)", name, size, mbps, tr.duration)
				require.Greater(t, tr.duration, expected*6/10, name)
				require.Less(t, tr.duration, expected*2, name)
			case <-time.After(60 * time.Second):
				t.Fatalf("%s did not finish", name)
			}
		}
		egressWait(t, j, 20*time.Second)
		require.Equal(t, strconv.Itoa(size)+"\n", jobLog(t, j), "the job received everything")
	})

	t.Run("an adopted job is shaped again", func(t *testing.T) {
		j, err := d.Start(ctx, Spec{LeaseID: 9107, Image: img, EgressMbps: 8, Command: []string{"sleep", "60"}})
		require.NoError(t, err)
		defer func() { _ = j.Stop(ctx) }()
		// The agent died between starting the container and shaping it.
		veth := hostVeth(t)
		egressExec(t, "tc", "qdisc", "del", "dev", veth, "root")
		require.NotContains(t, egressExec(t, "tc", "qdisc", "show", "dev", veth), "tbf")

		again := NewDocker(cli, limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, Egress: egress}))
		adopted, err := again.Adopt(ctx, Spec{LeaseID: 9107, Image: img})
		require.NoError(t, err)
		qdiscs := egressExec(t, "tc", "qdisc", "show", "dev", veth)
		require.Contains(t, qdiscs, "tbf")
		require.Contains(t, qdiscs, "rate 8Mbit", "the rate from the container's label")
		require.NoError(t, adopted.Stop(ctx))
	})

	t.Run("refused without an egress network", func(t *testing.T) {
		plain := NewDocker(cli, limited(DockerOptions{LogDir: t.TempDir()}))
		_, err := plain.Start(ctx, Spec{LeaseID: 9105, Image: img, EgressMbps: 10, Command: []string{"true"}})
		require.ErrorIs(t, err, ErrNoEgress)
		_, err = cli.ContainerInspect(ctx, ContainerName(9105))
		require.True(t, cerrdefs.IsNotFound(err), "no container made: %v", err)
	})

	t.Run("reinstalled cleanly, kept while jobs run, removed on close", func(t *testing.T) {
		// A crashed agent's jump for another bridge, and a second install over the first.
		egressExec(t, "iptables", "-w", "-I", "INPUT", "1", "-i", "idlegpu-old0", "-j", egressInputChain)
		again := newTestEgress(t, cli)
		require.Equal(t, []string{"-A INPUT -i " + egressTestBr + " -j " + egressInputChain}, jumpsIn(t, "INPUT", egressInputChain))
		require.Equal(t, []string{"-A DOCKER-USER -i " + egressTestBr + " -j " + egressForwardChain}, jumpsIn(t, "DOCKER-USER", egressForwardChain))
		rules, err := iptablesRules(egressForwardChain)
		require.NoError(t, err)
		require.Equal(t, 1, strings.Count(rules, "-d 169.254.0.0/16 -j DROP"), "chain refilled, not appended to")
		if again.fw.ip6 {
			require.Equal(t, []string{"-A FORWARD -i " + egressTestBr + " -j " + egressForwardChain,
				"-A INPUT -i " + egressTestBr + " -j " + egressForwardChain}, jumpsIn6(t, egressForwardChain))
		}

		j, err := d.Start(ctx, Spec{LeaseID: 9106, Image: img, EgressMbps: 10, Command: []string{"sleep", "60"}})
		require.NoError(t, err)
		require.NoError(t, again.Close(ctx))
		rules, err = iptablesRules(egressForwardChain)
		require.NoError(t, err)
		require.NotEmpty(t, rules, "a running job keeps its firewall")
		_, err = cli.NetworkInspect(ctx, egressTestNet, network.InspectOptions{})
		require.NoError(t, err)

		require.NoError(t, j.Stop(ctx))
		require.NoError(t, again.Close(ctx))
		for _, chain := range []string{egressForwardChain, egressInputChain} {
			rules, err := iptablesRules(chain)
			require.NoError(t, err)
			require.Empty(t, rules, chain)
		}
		require.Empty(t, jumpsIn(t, "INPUT", egressInputChain))
		require.Empty(t, jumpsIn(t, "DOCKER-USER", egressForwardChain))
		if again.fw.ip6 {
			require.NotContains(t, egressExec(t, "ip6tables", "-w", "-S"), egressForwardChain)
		}
		_, err = cli.NetworkInspect(ctx, egressTestNet, network.InspectOptions{})
		require.True(t, cerrdefs.IsNotFound(err), "network removed: %v", err)
	})
}

func newTestEgress(t *testing.T, cli *client.Client) *EgressNetwork {
	t.Helper()
	e, err := NewEgressNetwork(context.Background(), cli, EgressOptions{Name: egressTestNet, Bridge: egressTestBr,
		Subnet: egressTestSubnet, Resolvers: []netip.Addr{netip.MustParseAddr(dockertest.InternetPrivate)}})
	require.NoError(t, err)
	return e
}

// runProbe runs a job that tries every target at once (a dropped connection
// waits out the timeout) and returns "reached" or "blocked" for each.
func runProbe(t *testing.T, d *Docker, spec Spec, targets []string) map[string]string {
	t.Helper()
	var script strings.Builder
	for _, tg := range targets {
		host, port, err := net.SplitHostPort(tg)
		require.NoError(t, err)
		fmt.Fprintf(&script, `(r=$(echo ping | busybox nc -w 3 %s %s 2>/dev/null); if [ -n "$r" ]; then echo "%s reached"; else echo "%s blocked"; fi) & `,
			host, port, tg, tg)
	}
	script.WriteString("wait")
	spec.Command = []string{"sh", "-c", script.String()}
	j, err := d.Start(context.Background(), spec)
	require.NoError(t, err)
	egressWait(t, j, 30*time.Second)
	require.Equal(t, 0, j.Status().ExitCode, jobLog(t, j))
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(jobLog(t, j)), "\n") {
		f := strings.Fields(line)
		require.Len(t, f, 2, "log line %q", line)
		out[f[0]] = f[1]
	}
	return out
}

func egressWait(t *testing.T, j Job, d time.Duration) {
	t.Helper()
	select {
	case <-j.Done():
	case <-time.After(d):
		t.Fatalf("job still running after %v", d)
	}
}

func jobLog(t *testing.T, j Job) string {
	t.Helper()
	r, err := j.Logs()
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}

func containerIP(t *testing.T, cli *client.Client, name string) string {
	t.Helper()
	info, err := cli.ContainerInspect(context.Background(), name)
	require.NoError(t, err)
	ep := info.NetworkSettings.Networks[egressTestNet]
	require.NotNil(t, ep, "%s is on %s", name, egressTestNet)
	require.NotEmpty(t, ep.IPAddress)
	return ep.IPAddress
}

// dialRead connects from the host and reads until the other side closes.
func dialRead(addr string) (string, error) {
	c, err := net.DialTimeout("tcp4", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	b, err := io.ReadAll(c)
	return string(b), err
}

// hostVeth is the one port of the egress bridge (one job running).
func hostVeth(t *testing.T) string {
	t.Helper()
	var ports []string
	for _, line := range strings.Split(egressExec(t, "ip", "-o", "link", "show", "master", egressTestBr), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			ports = append(ports, strings.SplitN(strings.TrimSuffix(f[1], ":"), "@", 2)[0])
		}
	}
	require.Len(t, ports, 1, "bridge ports")
	return ports[0]
}

// jumpsIn6 lists the ip6tables rules jumping to chain.
func jumpsIn6(t *testing.T, chain string) []string {
	t.Helper()
	return jumps(egressExec(t, "ip6tables", "-w", "-S"), chain)
}

// jumpsIn lists parent's rules jumping to chain.
func jumpsIn(t *testing.T, parent, chain string) []string {
	t.Helper()
	return jumps(egressExec(t, "iptables", "-w", "-S", parent), chain)
}

func jumps(rules, chain string) []string {
	var out []string
	for _, line := range strings.Split(rules, "\n") {
		if jumpsTo(strings.Fields(line), chain) {
			out = append(out, line)
		}
	}
	sort.Strings(out)
	return out
}
