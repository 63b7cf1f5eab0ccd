package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/agent/audit"
	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/daemon"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/hostcheck"
	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/policy"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/chainclient"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

func runCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Run the agent: offer the GPUs, run leased jobs, prove every epoch, claim rewards",
		Long: `run is the provider's daemon. It follows the chain, keeps one offer per GPU
model in line with the policy, starts a leased job once the renter's manifest
arrives at the endpoint, samples the GPUs every sample_interval, proves every
epoch, preempts BRONZE leases on a GPU over a thermal or power limit, and
claims rewards on schedule. It answers and proves the chain's audits of
its GPUs, and asks for the audit each GPU needs before it is offered (and
again before its pass ends).

The machine is checked every 15 s (the runner's daemon answers, the GPUs
read, the state and work disks have 1 GiB free): while a check fails the
offers are paused on chain and new leases refused; they reopen after two
minutes healthy. A GPU backend that fails at start stops run (as doctor
says); the other checks do not. The operator's pause, drain and leave
(see those commands) hold over all of this.

SIGINT or SIGTERM pauses this machine's offers on chain (within 20 s) and
stops the agent but not the jobs: run it again (or let systemd restart it)
and it adopts them, proves on and reopens the offers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			cl, log, err := connect(cmd, cfg)
			if err != nil {
				return err
			}
			defer cl.Close()
			if cfg.Policy.Prices, err = resolvePrices(cmd, cfg, cl); err != nil {
				return err
			}
			if cfg.GPU.Backend == "sim" {
				if err := requireSimAllowed(cmd.Context(), providertypes.NewQueryClient(cl.Context()), cfg.Chain.ChainID); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(cfg.State.Dir, 0o700); err != nil {
				return err
			}
			gpus, err := openGPUs(cfg.GPU, log, filepath.Join(cfg.State.Dir, "sim-gpus.json"))
			if err != nil {
				return fmt.Errorf("gpus: %w", err)
			}
			defer gpus.Close()
			run, err := openRunner(cfg.Runner, cfg.Ingress, gpus)
			if err != nil {
				return err
			}
			if c, ok := run.(io.Closer); ok {
				defer c.Close() // the docker client and, with no job on it, the egress network
			}
			host := hostChecker(cfg, gpus)
			if err := checkHostAtStart(cmd.Context(), host, log); err != nil {
				return err
			}
			d, err := daemon.New(daemon.Deps{Config: cfg, Chain: cl, GPUs: gpus, Runner: run,
				Metrics: metrics.New(), Log: log, Version: Version, Audits: openAuditRunner(gpus, log), Host: host})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = d.Run(ctx)
			if ctx.Err() != nil {
				log.Info("agent stopped; jobs keep running and are adopted on the next start")
				return nil
			}
			return err
		},
	}
}

// checkHostAtStart refuses to start on a fatal host check (hostcheck.Fatal,
// which doctor shares) and says loudly what keeps the offers withdrawn.
func checkHostAtStart(ctx context.Context, host hostcheck.Checker, log *slog.Logger) error {
	rs := host.Run(ctx)
	if err := hostcheck.Fatal(rs); err != nil {
		return fmt.Errorf("this machine cannot run the agent (see `idlegpu-agent doctor`): %w", err)
	}
	for _, r := range hostcheck.Failing(rs) {
		log.Error("this machine cannot run jobs: offers stay withdrawn until it can", "check", r.String())
	}
	return nil
}

// gpuMemoryFreeWait is how long the driver has to free a job's GPU memory
// after its container is removed.
const gpuMemoryFreeWait = 30 * time.Second

// openRunner builds the configured job runner; both keep each lease's log
// at <work_dir>/lease-<id>/job.log (docker: the newest part, the older one
// in job.log.1; runner.OpenJobLog reads both). The docker runner is refused
// while a limit is 0 and not named in runner.unlimited.
func openRunner(c config.Runner, in config.Ingress, gpus gpu.Backend) (runner.Runner, error) {
	switch c.Backend {
	case "process":
		if !c.UnsafeProcessRunner {
			return nil, fmt.Errorf("runner.backend = \"process\" needs runner.unsafe_process_runner = true (development only)")
		}
		p, err := runner.NewProcess(c.WorkDir)
		if err != nil {
			return nil, err
		}
		if c.JobUIDBase != 0 {
			p.UIDBase = c.JobUIDBase
		}
		if c.JobRoot != "" {
			p.JobRoot = c.JobRoot
		}
		return p, nil
	case "docker":
		opts := runner.DefaultDockerOptions(c.WorkDir)
		opts.CPUCoresPerGPU = c.CPUCoresPerGPU
		opts.MemoryBytesPerGPU = int64(c.MemoryMiBPerGPU) << 20
		opts.DiskBytesPerGPU = int64(c.DiskGiBPerGPU) << 30
		opts.MaxImageBytes = c.MaxImageBytes
		opts.Unlimited = c.Unlimited
		opts.LogMaxBytes = int64(c.LogMaxMiB) << 20
		if err := opts.CheckLimits(); err != nil {
			return nil, limitsError(err, c, gpus)
		}
		// A job's GPUs are not offered again holding its memory. Simulated
		// GPUs (development, tests) have no device to ask the NVIDIA
		// runtime for and no memory a job could hold: their jobs get only
		// the variables naming them.
		if gpus.Name() == "sim" {
			opts.DeviceRequests = false
		} else {
			opts.GPUMemoryFree = gpu.MemoryFreeCheck(gpus, gpuMemoryFreeWait, time.Second)
		}
		// Jobs asking for internet egress run on the firewalled, shaped
		// egress network. Offers publish egress only when configured, and
		// then the agent does not start without the network: selling
		// egress it cannot give would fail every renter who asked for it.
		if c.EgressMbpsPerGPU > 0 {
			egressCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
			egress, err := runner.NewEgressNetworkFromEnv(egressCtx, runner.EgressOptions{})
			cancel()
			if err != nil {
				return nil, fmt.Errorf("runner.egress_mbps_per_gpu = %d but the egress network cannot be set up (set it to 0 to sell jobs without network): %w", c.EgressMbpsPerGPU, err)
			}
			opts.Egress = egress
		}
		// Jobs that serve run on the isolated service network the ingress
		// reaches; with an ingress configured the agent does not start
		// without it, as with egress.
		if in.Enabled() {
			svcCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
			svc, err := runner.NewServiceNetworkFromEnv(svcCtx, runner.ServiceOptions{Subnet: in.ServiceSubnet})
			cancel()
			if err != nil {
				return nil, fmt.Errorf("ingress.listen is set but the service network cannot be set up (empty ingress.listen sells jobs no inbound service): %w", err)
			}
			opts.Service = svc
		}
		d, err := runner.NewDockerFromEnv(opts)
		if err != nil {
			return nil, fmt.Errorf("docker runner: %w", err)
		}
		return d, nil
	}
	return nil, fmt.Errorf("runner.backend %q: want docker or process", c.Backend)
}

// resolvePrices reads the configured prices in the chain's currencies
// (human units through its denom metadata) and names the file's line of a
// bad one.
func resolvePrices(cmd *cobra.Command, cfg config.Config, cl *chainclient.Client) ([]config.Price, error) {
	res, err := banktypes.NewQueryClient(cl.Context()).DenomsMetadata(cmd.Context(), &banktypes.QueryDenomsMetadataRequest{})
	if err != nil {
		return nil, fmt.Errorf("query the chain's currencies: %w", err)
	}
	prices, err := policy.ResolvePrices(cfg.Policy.Prices, res.Metadatas)
	var pe *policy.PriceError
	if errors.As(err, &pe) {
		path := configPath(cmd)
		if n := config.PriceLine(path, pe.Index, pe.Key); n > 0 {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return prices, err
}

// openAuditRunner loads the CUDA driver for audits on real GPUs. Without it
// the agent still runs (jobs already leased, proofs), but cannot answer
// audits: that is said loudly, as its GPUs then lose their passes and
// leave the market, and a second missed audit in a row is slashed. The sim
// backend answers on the CPU (nil here).
func openAuditRunner(gpus gpu.Backend, log *slog.Logger) audit.Runner {
	if gpus.Name() == "sim" {
		return nil
	}
	d, err := audit.LoadCUDA("")
	if err != nil {
		log.Error("audits cannot run on this machine: its GPUs cannot pass an audit, so they are not offered (see `idlegpu-agent doctor`)", "err", err)
		return nil
	}
	return audit.GPU{Driver: d}
}
