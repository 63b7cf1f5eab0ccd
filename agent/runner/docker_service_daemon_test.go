package runner

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/dockertest"
)

// The test's service network.
const (
	serviceTestNet     = "idlegpu-service-test"
	serviceTestBr      = "idlegpu-svt0"
	serviceTestSubnet  = "172.31.251.0/24"
	serviceTestGateway = "172.31.251.1"
)

// TestDockerService runs jobs that serve on the service network of a real
// dockerd that manages iptables: the host (the agent's ingress) reaches each
// job's service at its address, and the jobs reach nothing: not each other,
// not the host, not the internet; a job that also has egress reaches the
// internet through the egress network only.
func TestDockerService(t *testing.T) {
	cli := dockertest.IptablesDaemon(t, dockertest.InternetPrivate, serviceTestBr, egressTestBr)
	img := importBusybox(t, cli)
	dockertest.FakeInternet(t)
	ctx := context.Background()

	svc := newTestService(t, cli)
	t.Cleanup(func() {
		if err := svc.Close(context.Background()); err != nil {
			t.Errorf("close service network: %v", err)
		}
		_ = svc.fw.remove(context.Background())
	})
	egress := newTestEgress(t, cli)
	t.Cleanup(func() {
		_ = egress.Close(context.Background())
		_ = egress.fw.remove(context.Background())
	})
	require.Equal(t, netip.MustParsePrefix(serviceTestSubnet), svc.Subnet())
	d := NewDocker(cli, limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, Egress: egress, Service: svc}))
	// serve listens on 8000 and answers each connection with the job's environment.
	serve := []string{"busybox", "nc", "-ll", "-p", "8000", "-e", "/bin/env"}

	t.Run("the host reaches the service, the jobs reach nothing", func(t *testing.T) {
		first, err := d.Start(ctx, Spec{LeaseID: 9201, Image: img, ServicePort: 8000, Command: serve})
		require.NoError(t, err)
		defer func() { require.NoError(t, first.Stop(ctx)) }()
		addr, err := d.ServiceAddr(ctx, 9201)
		require.NoError(t, err)
		require.True(t, svc.Subnet().Contains(addr.Addr()), "%s is on the service network", addr)
		require.Equal(t, uint16(8000), addr.Port())
		require.Eventually(t, func() bool {
			out, err := dialRead(addr.String())
			return err == nil && strings.Contains(out, "IDLEGPU_LEASE_ID=9201")
		}, 10*time.Second, 100*time.Millisecond, "the host reaches the job's service")
		// Nothing is published on the host's ports.
		info, err := cli.ContainerInspect(ctx, ContainerName(9201))
		require.NoError(t, err)
		require.Empty(t, info.NetworkSettings.Ports)

		inet := &dockertest.Pong{}
		go inet.Serve(dockertest.ListenInternet(t, "0.0.0.0:8090"))
		host := &dockertest.Pong{}
		go host.Serve(listenHost(t, "0.0.0.0:18091"))
		targets := []string{
			addr.String(),                         // another lease's service
			serviceTestGateway + ":18091",         // the host on the bridge
			dockertest.InternetHost + ":18091",    // the host on another address
			dockertest.InternetPublic + ":8090",   // the internet
			dockertest.InternetMetadata + ":8090", // cloud metadata
		}
		out := runProbe(t, d, Spec{LeaseID: 9202, Image: img, ServicePort: 8000}, targets)
		for _, tg := range targets {
			require.Equal(t, "blocked", out[tg], tg)
		}
		require.Empty(t, inet.Reached())
		require.Empty(t, host.Reached())

		// The control: without the agent's rules the host on the bridge
		// answers; Docker's internal network and inter-container setting
		// still stop the rest.
		require.NoError(t, svc.fw.remove(ctx))
		out = runProbe(t, d, Spec{LeaseID: 9203, Image: img, ServicePort: 8000}, targets)
		require.NoError(t, svc.fw.install(ctx))
		require.Equal(t, "reached", out[serviceTestGateway+":18091"], "unfiltered, the host is open to jobs")
	})

	t.Run("a job with egress and a service", func(t *testing.T) {
		inet := &dockertest.Pong{}
		go inet.Serve(dockertest.ListenInternet(t, "0.0.0.0:8092"))
		j, err := d.Start(ctx, Spec{LeaseID: 9204, Image: img, ServicePort: 8000, EgressMbps: 100, Command: []string{"sh", "-c",
			"(r=$(echo ping | busybox nc -w 3 " + dockertest.InternetPublic + " 8092); echo \"internet:$r\") && exec busybox nc -ll -p 8000 -e /bin/env"}})
		require.NoError(t, err)
		defer func() { require.NoError(t, j.Stop(ctx)) }()
		addr, err := d.ServiceAddr(ctx, 9204)
		require.NoError(t, err)
		require.True(t, svc.Subnet().Contains(addr.Addr()))
		require.Eventually(t, func() bool {
			out, err := dialRead(addr.String())
			return err == nil && strings.Contains(out, "IDLEGPU_LEASE_ID=9204")
		}, 10*time.Second, 100*time.Millisecond)
		require.Eventually(t, func() bool { return strings.Contains(jobLog(t, j), "internet:pong") }, 10*time.Second, 100*time.Millisecond,
			"it reaches the internet: %q", jobLog(t, j))
		require.Equal(t, []string{dockertest.InternetPublic + ":8092"}, inet.Reached())
	})

	t.Run("no service, no address", func(t *testing.T) {
		j, err := d.Start(ctx, Spec{LeaseID: 9205, Image: img, Command: []string{"sleep", "60"}})
		require.NoError(t, err)
		defer func() { require.NoError(t, j.Stop(ctx)) }()
		_, err = d.ServiceAddr(ctx, 9205)
		require.ErrorIs(t, err, ErrNoService)
		_, err = d.ServiceAddr(ctx, 9299)
		require.ErrorIs(t, err, ErrNotRunning)
	})

	t.Run("refused without a service network", func(t *testing.T) {
		plain := NewDocker(cli, limited(DockerOptions{LogDir: t.TempDir()}))
		_, err := plain.Start(ctx, Spec{LeaseID: 9206, Image: img, ServicePort: 8000, Command: serve})
		require.ErrorIs(t, err, ErrNoService)
		_, err = cli.ContainerInspect(ctx, ContainerName(9206))
		require.True(t, cerrdefs.IsNotFound(err), "no container made: %v", err)
	})

	t.Run("a network of the same name with other settings is refused", func(t *testing.T) {
		_, err := cli.NetworkCreate(ctx, "idlegpu-service-open", network.CreateOptions{Driver: "bridge",
			Options: map[string]string{bridgeNameOption: "idlegpu-svo0"}, Labels: map[string]string{serviceLabel: "true"}})
		require.NoError(t, err)
		defer func() { _ = cli.NetworkRemove(ctx, "idlegpu-service-open") }()
		_, err = NewServiceNetwork(ctx, cli, ServiceOptions{Name: "idlegpu-service-open", Bridge: "idlegpu-svo0"})
		require.ErrorContains(t, err, "network idlegpu-service-open exists with other settings (inter-container traffic on, not internal): remove it")
	})
}

func newTestService(t *testing.T, cli *client.Client) *ServiceNetwork {
	t.Helper()
	s, err := NewServiceNetwork(context.Background(), cli, ServiceOptions{Name: serviceTestNet, Bridge: serviceTestBr, Subnet: serviceTestSubnet})
	require.NoError(t, err)
	return s
}
