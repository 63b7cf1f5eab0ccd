package cmd

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
)

// errSimOnRealChain is register's refusal to put simulated GPUs on a chain
// that may pay for them.
var errSimOnRealChain = errors.New("simulated GPUs are for development chains only")

// devChainID matches the chain ids of local and test networks (idlegpu-local,
// idlegpu-localnet, idlegpu-devnet, idlegpu-test). Public chains end in a
// revision number (idlegpu-1), so they never match.
var devChainID = regexp.MustCompile(`-(local|localnet|devnet|test)$`)

// isDevChain says whether simulated GPUs may be registered on chainID:
// --dev-chain says so explicitly, or the id follows the development pattern.
func isDevChain(chainID string, flagged bool) bool {
	return flagged || devChainID.MatchString(chainID)
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
