package gateway_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/gateway"
)

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "probe.key")
	require.NoError(t, os.WriteFile(keyFile, []byte("igk_probe\n"), 0o600))
	write := func(body string) string {
		p := filepath.Join(dir, "gateway.toml")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	f, err := gateway.LoadFile(write(`
listen = "127.0.0.1:8443"
region = "eu-de-fra1"
probe_every = "500ms"

[[deployment]]
host = "chat.example.com"
probe_path = "/v1/models"
probe_key_file = "` + keyFile + `"

  [[deployment.upstream]]
  lease = 12
  url = "https://lease-12.gpu.example.com"
  region = "eu-de-fra1"

  [[deployment.upstream]]
  lease = 40
  url = "https://lease-40.gpus.example.net"
  region = "na-us-va1"
`))
	require.NoError(t, err)
	cfg, err := f.Config(t.Context())
	require.NoError(t, err)
	require.Equal(t, 500*time.Millisecond, cfg.ProbeEvery)
	require.Len(t, cfg.Deployments, 1)
	d := cfg.Deployments[0]
	require.Equal(t, "igk_probe", d.ProbeKey)
	require.Len(t, d.Upstreams, 2)
	require.Equal(t, "lease-40.gpus.example.net", d.Upstreams[1].URL.Host)
	require.Equal(t, "na-us-va1", d.Upstreams[1].Region)
	_, err = gateway.New(cfg)
	require.NoError(t, err)

	for name, body := range map[string]string{
		"a typo":               "listen = \"x\"\nprobe_evry = \"1s\"\n",
		"no listen":            "region = \"eu\"\n",
		"a cert without a key": "listen = \"x\"\ntls_cert = \"c.pem\"\n",
	} {
		_, err := gateway.LoadFile(write(body))
		require.Error(t, err, name)
	}
	f, err = gateway.LoadFile(write("listen = \"x\"\nprobe_timeout = \"-1s\"\n"))
	require.NoError(t, err)
	_, err = f.Config(t.Context())
	require.ErrorContains(t, err, "probe_timeout")
}
