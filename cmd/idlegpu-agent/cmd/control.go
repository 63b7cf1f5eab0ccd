package cmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/daemon"
	"github.com/idlegpu/idlegpu/chainclient"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// controlTimeout bounds a control command's chain work.
const controlTimeout = 2 * time.Minute

// The operator's controls. Each records its mode in the state directory
// first (a running daemon reads it every block and so never reopens what
// the operator paused), then sends the chain transactions itself with the
// agent's key, so it works whether the agent runs or not.

func pauseCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "pause",
		Short: "Pause this machine's offers on chain; running leases go on",
		Long: `pause records the mode "paused" in the state directory and pauses this
machine's offers on chain (agent key). Leases already won run and are proven
as usual. The offers stay paused, through restarts and health recoveries,
until ` + "`idlegpu-agent resume`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return control(cmd, daemon.ModePaused, func(ctx context.Context, c controller) error {
				return c.pause(ctx)
			})
		},
	}
}

func resumeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "resume",
		Short: "Sell again: reopen this machine's offers (after pause, drain or leave)",
		Long: `resume records the mode "running". A running agent reopens the offers
within a block (unless the machine is unhealthy: then once it is healthy
again); with no agent running, resume reopens them on chain itself. After
a leave, the GPUs must be registered again (` + "`idlegpu-agent register`" + `).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return control(cmd, daemon.ModeRunning, func(ctx context.Context, c controller) error {
				return c.resume(ctx)
			})
		},
	}
}

func drainCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "drain",
		Short: "Pause the offers and let running leases finish; status says drained",
		Long: `drain is pause, and then waiting: the running agent proves the leases on
this machine to their end and ` + "`idlegpu-agent status`" + ` reports "drained" once
none is left. Nothing is deregistered; resume sells again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return control(cmd, daemon.ModeDraining, func(ctx context.Context, c controller) error {
				if err := c.pause(ctx); err != nil {
					return err
				}
				return c.live(ctx)
			})
		},
	}
}

func leaveCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "leave",
		Short: "Drain, then close the offers, deregister the GPUs and start the unbond",
		Long: `leave drains this machine, then, once no lease is live on its GPUs, closes
its offers and deregisters its GPUs in one transaction (the agent key may;
the GPUs' records stay with them) and, when the provider has no GPU left
anywhere, unbonds the whole stake. MsgUnbond takes the operator's key only:
when the agent key is not the operator's, leave prints the idlegpud command
the operator runs. With leases still live, the running agent completes the
leave when they end (or run leave again then).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !yes {
				return fmt.Errorf("leave deregisters this machine's GPUs and unbonds the stake: pass --yes")
			}
			return control(cmd, daemon.ModeLeft, func(ctx context.Context, c controller) error {
				if err := c.pause(ctx); err != nil {
					return err
				}
				if err := c.live(ctx); err != nil {
					return err
				}
				return c.leave(ctx)
			})
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm: deregister the GPUs and unbond")
	return cmd
}

// controller is one control command's view: the chain with the agent's
// key, the provider, this machine's GPUs, and its state directory.
type controller struct {
	out      io.Writer
	cfg      config.Config
	cl       *chainclient.Client
	q        daemon.Queries
	provider string
	signer   string
	local    map[string]bool
	// running is the running agent's health, nil when none answers.
	running *daemon.HealthReport
}

// control records mode, then runs act against the chain.
func control(cmd *cobra.Command, mode daemon.Mode, act func(ctx context.Context, c controller) error) error {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	prev, _ := daemon.LoadMode(cfg.State.Dir)
	if err := os.MkdirAll(cfg.State.Dir, 0o700); err != nil {
		return err
	}
	st := daemon.ModeState{Mode: mode, Since: time.Now().UTC()}
	if mode == daemon.ModeLeft && prev.Mode == daemon.ModeLeft {
		st = prev // a second leave keeps when the first began and whether it is done
	}
	if err := daemon.SaveMode(cfg.State.Dir, st); err != nil {
		return fmt.Errorf("record mode %s: %w", mode, err)
	}
	fmt.Fprintf(out, "mode         %s (recorded in %s; a running agent follows it within a block)\n", mode, cfg.State.Dir)

	cl, log, err := connect(cmd, cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(cmd.Context(), controlTimeout)
	defer cancel()
	c := controller{out: out, cfg: cfg, cl: cl, q: daemon.NewQueries(cl.Context()),
		provider: providerAddress(cfg, cl), signer: cl.Address().String(), local: machineGPUs(ctx, cfg, log, out)}
	c.running, _ = agentHealth(ctx, cfg.Metrics.Listen)
	if err := act(ctx, c); err != nil {
		return fmt.Errorf("%w (mode %s is recorded: the running agent follows it; run this again to retry the chain's part)", err, mode)
	}
	return nil
}

// machineGPUs is this machine's GPUs; when the backend cannot list them,
// nil: the control then reaches all the provider's offers and GPUs.
func machineGPUs(ctx context.Context, cfg config.Config, log *slog.Logger, out io.Writer) map[string]bool {
	b, err := openGPUs(cfg.GPU, slog.New(slog.DiscardHandler))
	if err == nil {
		defer b.Close()
		devs, derr := b.Devices(ctx)
		if derr == nil {
			uuids := make([]string, len(devs))
			for i, d := range devs {
				uuids[i] = d.UUID
			}
			return daemon.LocalGPUs(uuids)
		}
		err = derr
	}
	log.Debug("GPUs not listed", "err", err)
	fmt.Fprintf(out, "gpus         not listed (%v): acting on all the provider's offers and GPUs\n", err)
	return nil
}

func (c controller) pause(ctx context.Context) error {
	n, err := daemon.SetOffers(ctx, c.cl, c.q, c.provider, c.signer, c.local, offertypes.OFFER_STATUS_PAUSED, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "offers       %d paused on chain\n", n)
	return nil
}

func (c controller) resume(ctx context.Context) error {
	if c.running != nil {
		note := "the running agent reopens them within a block"
		if c.running.HostUnhealthy {
			note = "the running agent reopens them once the machine is healthy: " + strings.Join(c.running.HostReasons, "; ")
		}
		fmt.Fprintf(c.out, "offers       %s\n", note)
		return nil
	}
	n, err := daemon.SetOffers(ctx, c.cl, c.q, c.provider, c.signer, c.local, offertypes.OFFER_STATUS_OPEN, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "offers       %d reopened on chain (no agent running: start `idlegpu-agent run` to take the jobs)\n", n)
	return nil
}

// live says how many leases a drain still waits for.
func (c controller) live(ctx context.Context) error {
	ls, err := daemon.LiveLeases(ctx, c.q, c.provider, c.local)
	if err != nil {
		return err
	}
	if len(ls) == 0 {
		fmt.Fprintln(c.out, "leases       none live: drained")
		return nil
	}
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = fmt.Sprint(l.Id)
	}
	fmt.Fprintf(c.out, "leases       %d live (%s): the running agent proves them to their end\n", len(ls), strings.Join(ids, ", "))
	return nil
}

func (c controller) leave(ctx context.Context) error {
	ls, err := daemon.LiveLeases(ctx, c.q, c.provider, c.local)
	if err != nil {
		return err
	}
	if len(ls) > 0 {
		fmt.Fprintln(c.out, "leave        waits for those leases: the running agent completes it when they end")
		return nil
	}
	if c.running != nil {
		// The running agent read the mode and leaves on its next step;
		// sending the same transactions beside it would race it.
		return c.awaitLeave(ctx)
	}
	res, err := daemon.Leave(ctx, c.cl, c.q, c.provider, c.signer, c.local)
	if err != nil {
		return err
	}
	st, _ := daemon.LoadMode(c.cfg.State.Dir)
	st.LeftAt, st.Left = time.Now().UTC(), &res
	if err := daemon.SaveMode(c.cfg.State.Dir, st); err != nil {
		return err
	}
	c.printLeave(res)
	return nil
}

// awaitLeave waits for the running agent to record its leave.
func (c controller) awaitLeave(ctx context.Context) error {
	fmt.Fprintln(c.out, "leave        the running agent leaves within a block; waiting for it")
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		st, err := daemon.LoadMode(c.cfg.State.Dir)
		if err == nil && !st.LeftAt.IsZero() && st.Left != nil {
			c.printLeave(*st.Left)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the running agent has not left yet (its log says why): %w", ctx.Err())
		case <-t.C:
		}
	}
}

// printLeave reports what a leave did.
func (c controller) printLeave(res daemon.LeaveResult) {
	fmt.Fprintf(c.out, "leave        %d offers closed, %d GPUs deregistered\n", res.ClosedOffers, res.Deregistered)
	switch {
	case res.OtherGPUs > 0:
		fmt.Fprintf(c.out, "stake        stays bonded: the provider has %d GPUs on other machines\n", res.OtherGPUs)
	case res.Unbonding != "":
		fmt.Fprintf(c.out, "stake        unbonding %s (paid back after the unbonding period)\n", res.Unbonding)
	case res.UnbondError != "":
		fmt.Fprintf(c.out, "stake        the chain refused the unbond (%s); the operator runs:\n  %s\n", res.UnbondError, res.UnbondCommand)
	case res.UnbondCommand != "":
		fmt.Fprintf(c.out, "stake        the agent key cannot unbond (MsgUnbond takes the operator's key); the operator runs:\n  %s\n", res.UnbondCommand)
	default:
		fmt.Fprintln(c.out, "stake        nothing bonded")
	}
}
