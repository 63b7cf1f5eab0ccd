package hostcheck

import (
	"context"

	"github.com/docker/docker/client"
)

// DockerPing pings the Docker daemon DOCKER_HOST (or the default socket)
// names; each call opens and closes its own client, so a daemon restarted
// meanwhile is found again.
func DockerPing(ctx context.Context) error {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.Ping(ctx)
	return err
}
