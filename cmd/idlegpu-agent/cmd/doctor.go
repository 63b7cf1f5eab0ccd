package cmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"time"

	"github.com/docker/docker/client"
	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/agent/audit"
	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/hostcheck"
	"github.com/idlegpu/idlegpu/endpoint"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// errDoctorFailed is doctor's exit when any check failed.
var errDoctorFailed = errors.New("doctor: some checks FAILED")

// maxClockSkew is the clock check's threshold: a proof's timestamps are
// judged against block times.
const maxClockSkew = 5 * time.Second

// check is one line of doctor's report.
type check struct {
	name, level, detail string // level: ok, warn or FAIL
}

func doctorCmd() *cobra.Command {
	var provider string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the machine: GPU backend and driver, XID errors, container runtime, endpoint and its pinned certificate, clock, disk",
		Long: `doctor prints one line per check (ok, warn or FAIL, and what it found) and
exits non-zero when any check failed. It needs no key: the provider is
key.provider, --provider, or nothing (then the endpoint is not compared with
the chain).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			if provider == "" {
				provider = cfg.Key.Provider
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			checks := runChecks(ctx, cfg, provider)
			return printChecks(cmd.OutOrStdout(), checks)
		},
	}
	cmd.Flags().StringVar(&provider, "provider", "", "provider address whose registered endpoint is checked (default: key.provider)")
	return cmd
}

func runChecks(ctx context.Context, cfg config.Config, provider string) []check {
	var cs []check
	add := func(name, level, format string, args ...any) {
		cs = append(cs, check{name, level, fmt.Sprintf(format, args...)})
	}
	b, err := openGPUs(cfg.GPU, slog.New(slog.DiscardHandler))
	var host []hostcheck.Result
	if err != nil {
		add("gpu backend", "FAIL", "%v (fatal: `run` refuses to start)", err)
	} else {
		defer b.Close()
		host = hostChecker(cfg, b).Run(ctx)
		devs, err := b.Devices(ctx)
		switch {
		case err != nil:
			add("gpu backend", "FAIL", "%s: %v (fatal: `run` refuses to start)", b.Name(), err)
		case b.Name() == "sim":
			add("gpu backend", "warn", "sim: %d SIMULATED GPUs (tests and demos only)", len(devs))
		default:
			add("gpu backend", "ok", "%s: %d GPUs, driver %s", b.Name(), len(devs), devs[0].DriverVersion)
		}
		var xids uint32
		for _, d := range devs {
			if r, err := b.Read(ctx, d.UUID); err == nil {
				xids += r.XIDErrors
			}
		}
		if err == nil {
			if xids > 0 {
				add("xid errors", "FAIL", "%d critical XID events pending", xids)
			} else {
				add("xid errors", "ok", "none pending")
			}
		}
		if err == nil {
			cs = append(cs, auditCheck(b.Name(), devs))
		}
	}
	if host == nil { // no GPU backend: the runner and disks are checked all the same
		host = hostChecker(cfg, nil).Run(ctx)
	}
	cs = append(cs, containerCheck(ctx, cfg.Runner, host))
	cs = append(cs, chainChecks(ctx, cfg, provider)...)
	// The checks the running agent repeats, judged as `run` judges them.
	for _, r := range host {
		if r.Part == hostcheck.PartRunner || (r.Part == hostcheck.PartGPU && b == nil) {
			continue // shown above
		}
		level, detail := hostLevel(r)
		cs = append(cs, check{map[string]string{hostcheck.PartGPU: "gpu reads", hostcheck.PartDisk: "disk"}[r.Part], level, detail})
	}
	return cs
}

// containerCheck says whether the docker daemon answers (the host check
// the running agent repeats) and has NVIDIA's runtime.
func containerCheck(ctx context.Context, c config.Runner, host []hostcheck.Result) check {
	if c.Backend != "docker" {
		return check{"container runtime", "ok", "runner " + c.Backend + ": none needed"}
	}
	for _, r := range host {
		if r.Part == hostcheck.PartRunner && !r.OK() {
			level, detail := hostLevel(r)
			return check{"container runtime", level, detail}
		}
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return check{"container runtime", "FAIL", err.Error()}
	}
	defer cli.Close()
	info, err := cli.Info(ctx)
	if err != nil {
		return check{"container runtime", "FAIL", "docker: " + err.Error()}
	}
	if _, ok := info.Runtimes["nvidia"]; !ok {
		return check{"container runtime", "FAIL", "docker " + info.ServerVersion + " has no nvidia runtime: install the NVIDIA Container Toolkit"}
	}
	return check{"container runtime", "ok", "docker " + info.ServerVersion + " with the nvidia runtime"}
}

// chainChecks compare the clock with the latest block and the endpoint's
// certificate with the pin on chain.
func chainChecks(ctx context.Context, cfg config.Config, provider string) []check {
	qc, err := queryContext(cfg)
	if err != nil {
		return []check{{"chain", "FAIL", err.Error()}}
	}
	st, err := qc.Client.Status(ctx)
	if err != nil {
		return []check{{"chain", "FAIL", fmt.Sprintf("%s: %v", cfg.Chain.RPC, err)}}
	}
	var cs []check
	skew := time.Since(st.SyncInfo.LatestBlockTime).Round(time.Millisecond)
	level := "ok"
	if skew > maxClockSkew || skew < -maxClockSkew {
		level = "warn"
	}
	cs = append(cs, check{"clock", level, fmt.Sprintf("%s behind block %d's time (blocks lag a few seconds; a large skew breaks proof windows)", skew, st.SyncInfo.LatestBlockHeight)})
	if provider == "" {
		return append(cs, check{"endpoint", "warn", "no provider (key.provider or --provider): endpoint not compared with the chain"})
	}
	res, err := providertypes.NewQueryClient(qc).Provider(ctx, &providertypes.QueryProviderRequest{Operator: provider})
	if err != nil {
		return append(cs, check{"endpoint", "FAIL", fmt.Sprintf("provider %s: %v", provider, err)})
	}
	return append(cs, endpointCheck(ctx, cfg.Endpoint, res.Provider))
}

// endpointCheck dials the registered endpoint and compares the certificate
// it serves, and the configured one, with the pin on chain.
func endpointCheck(ctx context.Context, e config.Endpoint, p providertypes.Provider) check {
	u, err := url.Parse(p.Endpoint)
	if err != nil || u.Scheme != "https" {
		return check{"endpoint", "warn", fmt.Sprintf("%s is not https: no certificate to check", p.Endpoint)}
	}
	if e.TLS() {
		if pin, err := endpoint.CertPin(e.TLSCert); err != nil || pin != p.TlsCertSha256 {
			return check{"endpoint", "FAIL", fmt.Sprintf("endpoint.tls_cert %s is not the certificate pinned on chain (%s): %v", e.TLSCert, p.TlsCertSha256, err)}
		}
	}
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // the pin, not a CA, is checked below
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return check{"endpoint", "FAIL", fmt.Sprintf("%s unreachable: %v (is the agent running and the port open?)", p.Endpoint, err)}
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 || endpoint.Pin(certs[0].Raw) != p.TlsCertSha256 {
		return check{"endpoint", "FAIL", fmt.Sprintf("%s serves a certificate that is not the one pinned on chain", p.Endpoint)}
	}
	return check{"endpoint", "ok", fmt.Sprintf("%s reachable, certificate matches the pin", p.Endpoint)}
}

func printChecks(w io.Writer, cs []check) error {
	failed := false
	for _, c := range cs {
		fmt.Fprintf(w, "%-4s  %-17s  %s\n", c.level, c.name, c.detail)
		failed = failed || c.level == "FAIL"
	}
	if failed {
		return errDoctorFailed
	}
	return nil
}

// auditCheck says whether the agent can answer audits: real GPUs need the
// CUDA driver library and every GPU visible to it (an unanswered audit is
// judged fraud).
func auditCheck(backend string, devs []gpu.Info) check {
	if backend == "sim" {
		return check{"audits", "ok", "sim: answered with the CPU reference"}
	}
	d, err := audit.LoadCUDA("")
	if err != nil {
		return check{"audits", "FAIL", fmt.Sprintf("%v: audits of these GPUs cannot be answered", err)}
	}
	uuids, err := d.UUIDs()
	if err != nil {
		return check{"audits", "FAIL", err.Error()}
	}
	for _, g := range devs {
		if !slices.Contains(uuids, g.UUID) {
			return check{"audits", "FAIL", fmt.Sprintf("CUDA does not show %s (CUDA_VISIBLE_DEVICES?): its audits cannot be answered", g.UUID)}
		}
	}
	return check{"audits", "ok", fmt.Sprintf("CUDA driver loaded, %d GPUs visible", len(uuids))}
}
