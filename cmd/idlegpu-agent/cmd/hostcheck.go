package cmd

import (
	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/hostcheck"
)

// hostChecker is what `run` gives the daemon to check every 15 s and what
// `doctor` runs once: the configured runner's daemon, the GPUs, and free
// space on the state and work disks. Both judge its results with
// hostcheck.IsFatal, so they agree on what stops the agent.
func hostChecker(cfg config.Config, gpus gpu.Backend) hostcheck.Checker {
	c := hostcheck.Checker{Runner: cfg.Runner.Backend, GPUs: gpus,
		Dirs: []string{cfg.State.Dir, cfg.Runner.WorkDir}, MinFree: hostcheck.MinFreeBytes}
	if cfg.Runner.Backend == "docker" {
		c.Ping = hostcheck.DockerPing
	}
	return c
}

// hostLevel is doctor's line for a host check: a fatal failure stops
// `run` at start; any other failure lets it start with its offers
// withdrawn. Both are FAIL: either way the machine sells nothing.
func hostLevel(r hostcheck.Result) (level, detail string) {
	switch {
	case r.OK():
		return "ok", r.Detail
	case hostcheck.IsFatal(r):
		return "FAIL", r.Err.Error() + " (fatal: `run` refuses to start)"
	}
	return "FAIL", r.Err.Error() + " (`run` starts with its offers withdrawn until this is fixed)"
}
