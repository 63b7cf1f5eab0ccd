package cmd

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
)

// openGPUs opens the configured telemetry backend. "auto" means NVML when
// the driver's library loads; without one the agent falls back to
// simulated GPUs and says so loudly, since they earn nothing real.
//
// simState, when set, is where simulated GPUs keep their energy counters
// across restarts (the daemon's; one-shot commands pass "").
func openGPUs(c config.GPU, log *slog.Logger, simState ...string) (gpu.Backend, error) {
	sim := func() (gpu.Backend, error) {
		cfg := gpu.SimConfig{Model: c.SimModel, Count: c.SimCount, Seed: c.SimSeed}
		if len(simState) > 0 {
			cfg.StateFile = simState[0]
		}
		return gpu.NewSim(cfg)
	}
	switch c.Backend {
	case "sim":
		log.Warn("using SIMULATED GPUs (gpu.backend = sim): for tests and demos only", "model", c.SimModel, "count", c.SimCount)
		return sim()
	case "nvml":
		return gpu.NewNVMLDefault()
	case "auto":
		b, err := gpu.NewNVMLDefault()
		if errors.Is(err, gpu.ErrUnavailable) {
			log.Warn("NVML UNAVAILABLE: falling back to SIMULATED GPUs; install the NVIDIA driver or set gpu.backend = nvml to require it",
				"reason", err.Error(), "model", c.SimModel, "count", c.SimCount)
			return sim()
		}
		return b, err
	}
	return nil, fmt.Errorf("gpu.backend %q: want auto, nvml or sim", c.Backend)
}
