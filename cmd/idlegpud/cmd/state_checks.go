package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"

	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// stateCheck reads the chain for what a tx command names and refuses it
// before anything is signed: `close-lease 999` says "lease 999 not found"
// instead of paying a fee to hear it.
type stateCheck func(cmd *cobra.Command, clientCtx client.Context, args []string) error

// stateChecks are the autocli tx commands' checks, by command path (the
// hand-written commands run theirs in their own RunE).
var stateChecks = map[string]stateCheck{
	"tx auction cancel-job":    jobArg(0),
	"tx auction withdraw-bid":  jobArg(1),
	"tx auction place-bid":     placeBid,
	"tx auction start-lease":   leaseArg(0),
	"tx auction close-lease":   leaseArg(0),
	"tx auction preempt-lease": leaseArg(0),
	"tx offer close-offer":     offerArg(0),
	"tx provider bond":         stakeArg(0),
	"tx provider unbond":       stakeArg(0),
}

// addStateChecks runs each stateCheck before its command, when online: a
// --generate-only or --offline tx is built without a node. An argument
// that does not parse, or a client context that cannot be read (a missing
// key), is left to the command, which says what is wrong.
func addStateChecks(root *cobra.Command) {
	for path, check := range stateChecks {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil || cmd.CommandPath() != "idlegpud "+path {
			panic(fmt.Sprintf("command %q not found", path))
		}
		prev := cmd.PreRunE
		cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
			if prev != nil {
				if err := prev(cmd, args); err != nil {
					return err
				}
			}
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil || !precheck.Online(clientCtx) {
				return nil // the command says what is wrong with its context, after its arguments
			}
			return check(cmd, clientCtx, args)
		}
	}
}

// leaseArg, jobArg and offerArg refuse an id in args[i] the chain does not hold.
func leaseArg(i int) stateCheck {
	return func(cmd *cobra.Command, clientCtx client.Context, args []string) error {
		id, ok := idArg(args, i)
		if !ok {
			return nil
		}
		return precheck.Lease(cmd.Context(), clientCtx, id)
	}
}

func jobArg(i int) stateCheck {
	return func(cmd *cobra.Command, clientCtx client.Context, args []string) error {
		id, ok := idArg(args, i)
		if !ok {
			return nil
		}
		_, err := precheck.Job(cmd.Context(), clientCtx, id)
		return err
	}
}

func offerArg(i int) stateCheck {
	return func(cmd *cobra.Command, clientCtx client.Context, args []string) error {
		id, ok := idArg(args, i)
		if !ok {
			return nil
		}
		_, err := precheck.Offer(cmd.Context(), clientCtx, id)
		return err
	}
}

// stakeArg checks a stake amount's denom.
func stakeArg(i int) stateCheck {
	return func(cmd *cobra.Command, clientCtx client.Context, args []string) error {
		if i >= len(args) {
			return nil
		}
		c, err := parseCoin(args[i], false)
		if err != nil {
			return nil
		}
		if err := precheck.StakeDenom(cmd.Context(), clientCtx, c.Denom); err != nil {
			return fmt.Errorf("amount: %w", err)
		}
		return nil
	}
}

// placeBid checks `place-bid <provider> <job-id> <offer-id> <price>
// <gpu-count>`: the job and offer exist and the price is in the job's denom.
func placeBid(cmd *cobra.Command, clientCtx client.Context, args []string) error {
	jobID, ok := idArg(args, 1)
	if !ok {
		return nil
	}
	job, err := precheck.Job(cmd.Context(), clientCtx, jobID)
	if err != nil {
		return err
	}
	if offerID, ok := idArg(args, 2); ok {
		if _, err := precheck.Offer(cmd.Context(), clientCtx, offerID); err != nil {
			return err
		}
	}
	if len(args) > 3 {
		if price, err := parseCoin(args[3], false); err == nil && price.Denom != job.Spec.MaxPrice.Denom {
			return fmt.Errorf("price: job %d pays in %s, not %s", jobID, job.Spec.MaxPrice.Denom, price.Denom)
		}
	}
	return nil
}

// idArg is args[i] as an id, if it is one.
func idArg(args []string, i int) (uint64, bool) {
	if i >= len(args) {
		return 0, false
	}
	id, err := strconv.ParseUint(args[i], 10, 64)
	return id, err == nil
}
