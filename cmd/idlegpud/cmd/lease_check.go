package cmd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/tx"
	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/endpoint"
	auctioncli "github.com/idlegpu/idlegpu/x/auction/client/cli"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// checkCommand is `lease check`: a renter's audit of one proven epoch. It
// fetches the epoch's raw samples from the provider, verifies each under the
// proof's samples_root on chain, and judges each against the proof's summary
// with the chain's own rule (ExecutionProof.Contradiction), so a sample it
// reports is one the chain will accept as fraud (docs/design.md#fraud-proofs).
func checkCommand() *cobra.Command {
	cmd := leaseSub("check <lease-id> <epoch>", "Check an epoch's samples against its proof on chain; --report files a fraud report for the first contradiction", 2,
		func(ctx context.Context, c *endpoint.Client, id uint64, args []string, cmd *cobra.Command, clientCtx client.Context) error {
			epoch, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil {
				return fmt.Errorf("epoch: %q is not a number", args[1])
			}
			proof, err := storedProof(ctx, clientCtx, id, epoch)
			if err != nil {
				return err
			}
			served, err := c.Samples(ctx, id, epoch, proof.SamplesRoot)
			if err != nil {
				return err
			}
			found, err := contradictions(proof, served)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(found) == 0 {
				fmt.Fprintf(out, "lease %d epoch %d: %d samples under the proof's root, every one consistent with its summary\n", id, epoch, len(served.Samples))
				return nil
			}
			for _, f := range found {
				fmt.Fprintf(out, "sample %d (GPU %s at %d ms): %s\n", f.LeafIndex, f.Sample.GpuUuid, f.Sample.TimestampMs, f.why)
			}
			report, err := cmd.Flags().GetBool("report")
			if err != nil {
				return err
			}
			if !report {
				return fmt.Errorf("%d samples contradict the proof of lease %d epoch %d: run again with --report to file a fraud report", len(found), id, epoch)
			}
			f := found[0]
			msg := &settlementtypes.MsgReportFraud{
				Reporter: clientCtx.GetFromAddress().String(), LeaseId: id, Epoch: epoch,
				Sample: f.Sample, LeafIndex: f.LeafIndex, Path: f.Path,
			}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), msg)
		})
	cmd.Flags().Bool("report", false, "file a fraud report (MsgReportFraud, --from the reporter) for the first contradicting sample")
	// --report broadcasts a tx: the tx flags (with --from, keyring, node and
	// chain id) are this subcommand's.
	flags.AddTxFlagsToCmd(cmd)
	auctioncli.AddEthKeyFlags(cmd, "the Ethereum key of a renter that bids by wallet signature, to fetch the samples with (--report still needs --from)")
	return cmd
}

// finding is a served sample, proven under the root, that the proof's
// summary contradicts.
type finding struct {
	endpoint.SampleWithPath
	why string
}

// contradictions judges every served sample against the proof. The served
// set must be the proof's whole tree: the chain checks a path against the
// proof's own sample count, so paths built for another size would be refused.
func contradictions(proof settlementtypes.ExecutionProof, served endpoint.SamplesResponse) ([]finding, error) {
	if n := uint64(len(served.Samples)); n != proof.SampleCount() {
		return nil, fmt.Errorf("the endpoint served %d samples but the proof on chain counts %d", n, proof.SampleCount())
	}
	var found []finding
	for _, s := range served.Samples {
		if why := proof.Contradiction(s.Sample); why != "" {
			found = append(found, finding{SampleWithPath: s, why: why})
		}
	}
	return found, nil
}

// storedProof is the proof the chain stored for an epoch of a lease.
func storedProof(ctx context.Context, clientCtx client.Context, leaseID, epoch uint64) (settlementtypes.ExecutionProof, error) {
	q := settlementtypes.NewQueryClient(clientCtx)
	res, err := q.LeaseProofs(ctx, &settlementtypes.QueryLeaseProofsRequest{LeaseId: leaseID})
	for err == nil {
		for _, r := range res.Proofs {
			if r.Proof.Epoch == epoch {
				return r.Proof, nil
			}
		}
		if res.Pagination == nil || len(res.Pagination.NextKey) == 0 {
			break
		}
		res, err = q.LeaseProofs(ctx, &settlementtypes.QueryLeaseProofsRequest{LeaseId: leaseID,
			Pagination: &query.PageRequest{Key: res.Pagination.NextKey}})
	}
	if err != nil {
		return settlementtypes.ExecutionProof{}, err
	}
	return settlementtypes.ExecutionProof{}, fmt.Errorf("the chain holds no proof of lease %d epoch %d (not proven yet, or pruned)", leaseID, epoch)
}
