package daemon

import (
	"context"
	"maps"
	"slices"
	"time"
)

// refreshMode reads the operator's mode (a small file, once a step) so that
// `idlegpu-agent pause | resume | drain | leave` reach a running daemon
// within a block; a change has the offers published at once.
func (d *Daemon) refreshMode() {
	s, err := LoadMode(d.cfg.State.Dir)
	if err != nil {
		if msg := err.Error(); msg != d.modeErr {
			d.log.Error("agent mode unreadable: offers stay paused until it is fixed (`idlegpu-agent resume` rewrites it)", "err", err)
			d.modeErr = msg
		}
	} else {
		d.modeErr = ""
	}
	if s.Mode == d.mode.Mode && s.LeftAt.Equal(d.mode.LeftAt) {
		return
	}
	if d.mode.Mode != "" {
		d.log.Info("agent mode changed by the operator", "from", d.mode.Mode, "to", s.Mode)
	}
	d.mode = s
	d.health.setMode(s)
	d.m.SetMode(string(s.Mode))
	d.offersDue.Store(true)
}

// localGPUs is this machine's GPUs as a set.
func (d *Daemon) localGPUs() map[string]bool {
	return LocalGPUs(slices.Collect(maps.Keys(d.devices)))
}

// pauseReason is why the machine's offers must be PAUSED now ("" when
// they may be open): the operator's mode, an unhealthy machine, a GPU over
// a limit.
func (d *Daemon) pauseReason() string {
	switch {
	case !d.mode.Mode.Sells():
		return "operator: " + string(d.mode.Mode)
	case d.gate.refusal() != nil:
		return "unhealthy"
	case d.limits.Hot():
		return "thermal or power limit"
	}
	return ""
}

// drain follows a draining or leaving machine: it reports drained once no
// lease is live on its GPUs, and a leaving one then leaves (offers closed,
// GPUs deregistered, unbond started or left to the operator), once.
func (d *Daemon) drain(ctx context.Context) error {
	if d.mode.Mode != ModeDraining && d.mode.Mode != ModeLeft {
		return nil
	}
	local := d.localGPUs()
	live, err := LiveLeases(ctx, d.q, d.provider, local)
	if err != nil {
		return err
	}
	d.health.drained(len(live))
	if len(live) > 0 || d.mode.Mode != ModeLeft || !d.mode.LeftAt.IsZero() {
		return nil
	}
	res, err := Leave(ctx, d.chain, d.q, d.provider, d.signer, local)
	if err != nil {
		return err
	}
	d.mode.LeftAt, d.mode.Left = time.Now().UTC(), &res
	if err := SaveMode(d.cfg.State.Dir, d.mode); err != nil {
		return err
	}
	d.health.setMode(d.mode)
	d.log.Info("left the market: offers closed, GPUs deregistered", "closed_offers", res.ClosedOffers,
		"deregistered_gpus", res.Deregistered, "other_gpus", res.OtherGPUs, "unbonding", res.Unbonding)
	switch {
	case res.UnbondError != "":
		d.log.Error("unbond refused: the operator runs it", "err", res.UnbondError, "command", res.UnbondCommand)
	case res.UnbondCommand != "":
		d.log.Warn("the agent key cannot unbond (MsgUnbond takes the operator): the operator runs", "command", res.UnbondCommand)
	}
	return nil
}
