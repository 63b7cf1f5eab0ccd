package main_test

import (
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/gateway/gatewaytest"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// TestGatewayBinary runs idlegpu-gateway as an operator does, from a
// gateway.toml, in front of two providers' ingresses: a streamed request
// answered with the caller's key; one provider killed, every request still
// answered; both killed, /healthz fails within 5 s; SIGTERM stops it.
func TestGatewayBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "idlegpu-gateway")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	require.NoError(t, build.Run())

	key, h, err := ingress.NewKey()
	require.NoError(t, err)
	probeKey, ph, err := ingress.NewKey()
	require.NoError(t, err)
	a, b := gatewaytest.NewLease(t, 1, h, ph), gatewaytest.NewLease(t, 2, h, ph)
	var ca []byte
	for _, l := range []*gatewaytest.Lease{a, b} {
		ca = append(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: l.Ingress.Certificate().Raw})...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.pem"), ca, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "probe.key"), []byte(probeKey+"\n"), 0o600))
	ports := harness.FreePorts(t, 2)
	conf := fmt.Sprintf(`listen = "127.0.0.1:%d"
region = "eu-de-fra1"
ca_file = "%s"
probe_every = "250ms"
probe_timeout = "1s"

[[deployment]]
host = "chat.example.com"
probe_path = "/v1/models"
probe_key_file = "%s"
`, ports[0], filepath.Join(dir, "ca.pem"), filepath.Join(dir, "probe.key"))
	for _, l := range []*gatewaytest.Lease{a, b} {
		u := l.Upstream()
		conf += fmt.Sprintf("\n  [[deployment.upstream]]\n  lease = %d\n  url = %q\n  host = %q\n  region = \"eu-de-fra1\"\n", l.ID, u.URL.String(), u.Host)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gateway.toml"), []byte(conf), 0o600))
	gw := harness.Start(t, bin, "serve", "--config", filepath.Join(dir, "gateway.toml"), "--status-listen", fmt.Sprintf("127.0.0.1:%d", ports[1]))
	defer func() {
		if t.Failed() {
			t.Logf("gateway output:\n%s", gw.Output())
		}
	}()
	url := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	status := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	harness.WaitFor(t, 10*time.Second, "the gateway", func() bool { return get(status+"/healthz") == 200 })

	chat := func() (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
		req.Host = "chat.example.com"
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	code, body := chat()
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, strings.HasSuffix(body, "data: [DONE]\n\n"), body)

	a.Kill()
	for range 4 {
		code, body := chat()
		require.Equal(t, http.StatusOK, code, body)
		require.Contains(t, body, `"lease":2`)
	}
	b.Kill()
	killed := time.Now()
	harness.WaitFor(t, 5*time.Second, "/healthz to fail with both providers dead", func() bool { return get(status+"/healthz") == http.StatusServiceUnavailable })
	t.Logf("both leases out of rotation %s after the second was killed", time.Since(killed).Round(time.Millisecond))

	gw.Stop(t, syscall.SIGTERM)
}

func get(url string) int {
	res, err := http.Get(url)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}
