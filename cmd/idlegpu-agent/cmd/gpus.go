package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// errSimOnRealChain is the refusal to put simulated GPUs on a chain that
// may pay for them.
var errSimOnRealChain = errors.New("simulated GPUs are for development chains only")

// requireSimAllowed refuses the sim backend unless the chain itself says it
// is a development chain (x/provider allow_simulated_gpus, set by
// `idlegpud genesis development`): the chain refuses simulated GPUs, and
// their audits, everywhere else.
func requireSimAllowed(ctx context.Context, q providertypes.QueryClient, chainID string) error {
	res, err := q.Params(ctx, &providertypes.QueryParamsRequest{})
	if err != nil {
		return fmt.Errorf("query provider params: %w", err)
	}
	if !res.Params.AllowSimulatedGpus {
		return fmt.Errorf(`%w: gpu.backend is "sim" and chain %q does not allow simulated GPUs (x/provider allow_simulated_gpus is false); use real GPUs (gpu.backend = "nvml" or "auto")`,
			errSimOnRealChain, chainID)
	}
	return nil
}

// openGPUs opens the configured telemetry backend. "auto" means NVML and
// fails without it: simulated GPUs must be asked for by name (backend =
// "sim"), since a machine that silently reports made-up GPUs would offer
// hardware it does not have.
//
// simState, when set, is where simulated GPUs keep their energy counters
// across restarts (the daemon's; one-shot commands pass "").
func openGPUs(c config.GPU, log *slog.Logger, simState ...string) (gpu.Backend, error) {
	switch c.Backend {
	case "sim":
		log.Warn("using SIMULATED GPUs (gpu.backend = sim): for tests and demos only", "model", c.SimModel, "count", c.SimCount)
		cfg := gpu.SimConfig{Model: c.SimModel, Count: c.SimCount, Seed: c.SimSeed}
		if len(simState) > 0 {
			// The daemon: it tells the sim its jobs each tick, when the
			// sim also applies the control file.
			cfg.StateFile, cfg.ControlFile, cfg.Log = simState[0], c.SimControl, log
		}
		return gpu.NewSim(cfg)
	case "nvml":
		return gpu.NewNVMLDefault()
	case "auto":
		b, err := gpu.NewNVMLDefault()
		if errors.Is(err, gpu.ErrUnavailable) {
			return nil, fmt.Errorf(`gpu.backend "auto" found no usable NVIDIA driver: %w; install the driver (nvidia-smi must work; the agent loads libnvidia-ml.so.1), or, for tests and demos only, set gpu.backend = "sim" (init --gpu-backend sim)`, err)
		}
		return b, err
	}
	return nil, fmt.Errorf("gpu.backend %q: want auto, nvml or sim", c.Backend)
}
