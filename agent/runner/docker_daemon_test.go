package runner

import (
	"os"
	"testing"

	"github.com/docker/docker/client"

	"github.com/idlegpu/idlegpu/scripts/dockertest"
)

// dockerDaemon is the tests' Docker daemon: the configured one, else a
// private dockerd (root only); the test skips when neither can run.
func dockerDaemon(t *testing.T) *client.Client { return dockertest.Daemon(t) }

// importBusybox imports the tests' busybox image and returns its id; it
// has no registry digest, so the tests run it by id with RequireDigest
// off (digest checking has its own tests).
func importBusybox(t *testing.T, cli *client.Client) string { return dockertest.ImportBusybox(t, cli) }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
