package dockertest_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/dockertest"
)

// TestRegistryServesAPinnedImage: a real daemon pulls the registry's image
// by digest, records that digest, and runs it.
func TestRegistryServesAPinnedImage(t *testing.T) {
	cli := dockertest.Daemon(t)
	ref := dockertest.Registry(t, "idlegpu/busybox")
	ctx := context.Background()
	rc, err := cli.ImagePull(ctx, ref, image.PullOptions{})
	require.NoError(t, err)
	require.NoError(t, dockertest.StreamError(rc))
	rc.Close()
	info, err := cli.ImageInspect(ctx, ref)
	require.NoError(t, err)
	require.Contains(t, info.RepoDigests, ref)
	t.Cleanup(func() { _, _ = cli.ImageRemove(context.Background(), info.ID, image.RemoveOptions{Force: true}) })

	c, err := cli.ContainerCreate(ctx, &container.Config{Image: ref, Cmd: []string{"sh", "-c", "echo pulled $(id -u)"}}, &container.HostConfig{NetworkMode: "none"}, nil, nil, "")
	require.NoError(t, err)
	defer func() { _ = cli.ContainerRemove(context.Background(), c.ID, container.RemoveOptions{Force: true}) }()
	require.NoError(t, cli.ContainerStart(ctx, c.ID, container.StartOptions{}))
	wait, errc := cli.ContainerWait(ctx, c.ID, container.WaitConditionNotRunning)
	select {
	case w := <-wait:
		require.Zero(t, w.StatusCode)
	case err := <-errc:
		t.Fatal(err)
	}
	logs, err := cli.ContainerLogs(ctx, c.ID, container.LogsOptions{ShowStdout: true})
	require.NoError(t, err)
	b, err := io.ReadAll(logs)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(b), "pulled 0\n"), "%q", b)
}
