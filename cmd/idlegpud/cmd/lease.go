package cmd

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"

	"github.com/idlegpu/idlegpu/endpoint"
	auctioncli "github.com/idlegpu/idlegpu/x/auction/client/cli"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// leaseCommand is `idlegpud lease`: the renter's side of a lease's job, at
// the provider's endpoint found on chain.
func leaseCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lease",
		Short: "Talk to a lease's provider: send the manifest, read status, logs and samples, download outputs (--from the renter)",
		RunE:  client.ValidateCmd,
	}
	samples := endpointFlags(leaseSub("samples <lease-id> <epoch>", "Fetch an epoch's raw samples, verified against the proof's samples_root on chain, as JSON", 2,
		func(ctx context.Context, c *endpoint.Client, id uint64, args []string, cmd *cobra.Command, clientCtx client.Context) error {
			epoch, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil {
				return fmt.Errorf("epoch: %w", err)
			}
			root, err := proofRoot(ctx, clientCtx, id, epoch)
			if err != nil {
				return err
			}
			s, err := c.Samples(ctx, id, epoch, root)
			if err != nil {
				return err
			}
			return clientCtx.PrintObjectLegacy(s)
		}))
	samples.Flags().StringP(flags.FlagOutput, "o", flags.OutputFormatJSON, "Output format (text|json)")
	cmd.AddCommand(
		endpointFlags(leaseSub("send-manifest <lease-id> <manifest.json>", "Send the job's manifest (the file hashed into the job's manifest_hash) to start the lease", 2,
			func(ctx context.Context, c *endpoint.Client, id uint64, args []string, cmd *cobra.Command, _ client.Context) error {
				b, err := os.ReadFile(args[1])
				if err != nil {
					return err
				}
				a, err := c.SendManifest(ctx, id, b)
				if err != nil {
					return err
				}
				if a.Preparing != "" {
					// The lease starts once the inputs are in; status tells.
					fmt.Fprintf(cmd.OutOrStdout(), "manifest accepted for lease %d: %s first (follow with `idlegpud lease status %d`)\n", id, a.Preparing, id)
					return nil
				}
				fmt.Fprintf(cmd.OutOrStdout(), "manifest accepted for lease %d\n", id)
				return nil
			})),
		endpointFlags(leaseSub("status <lease-id>", "Show the job's status", 1,
			func(ctx context.Context, c *endpoint.Client, id uint64, _ []string, cmd *cobra.Command, _ client.Context) error {
				st, err := c.Status(ctx, id)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "lease %d: %s, job %s, epochs proven %d %s\n",
					st.LeaseID, st.Lease, jobState(st), st.EpochsProven, st.Error)
				return nil
			})),
		logsCommand(),
		outputsCommand(),
		downloadCommand(),
		samples,
		checkCommand(),
		addKeyCommand(),
		revokeKeyCommand(),
	)
	return cmd
}

// logsCommand is `lease logs`: a chunk of the job's output (the endpoint
// serves at most endpoint.MaxLogBytes a request); where the chunk sits in
// the log goes to stderr, so stdout is the log's bytes only.
func logsCommand() *cobra.Command {
	cmd := endpointFlags(leaseSub("logs <lease-id>", "Print the job's output: its last --tail bytes (default 1 MiB), or --limit bytes from --offset", 1,
		func(ctx context.Context, c *endpoint.Client, id uint64, _ []string, cmd *cobra.Command, _ client.Context) error {
			var lr endpoint.LogRange
			var err error
			if lr.Tail, err = cmd.Flags().GetInt64("tail"); err != nil {
				return err
			}
			if lr.Offset, err = cmd.Flags().GetInt64("offset"); err != nil {
				return err
			}
			if lr.Limit, err = cmd.Flags().GetInt64("limit"); err != nil {
				return err
			}
			if lr.Tail > 0 && (lr.Offset > 0 || lr.Limit > 0) {
				return fmt.Errorf("--tail, or --offset and --limit, not both")
			}
			chunk, err := c.Logs(ctx, id, lr)
			if err != nil {
				return err
			}
			if chunk.Offset > 0 || chunk.Offset+int64(len(chunk.Data)) < chunk.Size {
				fmt.Fprintf(cmd.ErrOrStderr(), "bytes %d-%d of %d\n", chunk.Offset, chunk.Offset+int64(len(chunk.Data)), chunk.Size)
			}
			_, err = cmd.OutOrStdout().Write(chunk.Data)
			return err
		}))
	cmd.Flags().Int64("tail", 0, "print the log's last N bytes (at most 8 MiB)")
	cmd.Flags().Int64("offset", 0, "print from this byte of the log")
	cmd.Flags().Int64("limit", 0, "with --offset: at most N bytes (default 1 MiB, at most 8 MiB)")
	return cmd
}

type leaseAction func(ctx context.Context, c *endpoint.Client, id uint64, args []string, cmd *cobra.Command, clientCtx client.Context) error

// leaseSub builds one subcommand: it finds the lease's provider endpoint
// and certificate pin on chain and signs its requests with the --from key,
// or with --eth-key for a renter whose account is an Ethereum address.
// It signs no transaction, so it takes only the flags it reads (see
// endpointFlags); a subcommand that also broadcasts one (lease check
// --report) adds the tx flags itself.
func leaseSub(use, short string, nargs int, act leaseAction) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(nargs),
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil {
				return err
			}
			ethKey, err := auctioncli.EthKey(cmd)
			if err != nil {
				return err
			}
			if clientCtx.FromName == "" && ethKey == nil {
				return fmt.Errorf("--from or --eth-key: the renter's key signs every request")
			}
			id, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("lease id: %w", err)
			}
			ctx := cmd.Context()
			lres, err := auctiontypes.NewQueryClient(clientCtx).Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: id})
			if err != nil {
				return err
			}
			pres, err := providertypes.NewQueryClient(clientCtx).Provider(ctx, &providertypes.QueryProviderRequest{Operator: lres.Lease.Provider})
			if err != nil {
				return err
			}
			chainID := clientCtx.ChainID
			if chainID == "" { // no --chain-id and none in client.toml: the node's
				st, err := clientCtx.Client.Status(ctx)
				if err != nil {
					return fmt.Errorf("chain id: %w", err)
				}
				chainID = st.NodeInfo.Network
			}
			var signer endpoint.Signer = keyringSigner{clientCtx: clientCtx}
			if ethKey != nil { // a renter that bids by wallet signature
				signer = endpoint.WalletKey{Key: ethKey}
			}
			target := endpoint.Target{ChainID: chainID, Provider: lres.Lease.Provider}
			c := endpoint.NewClient(pres.Provider.Endpoint, target, signer, pres.Provider.TlsCertSha256)
			return act(ctx, c, id, args, cmd, clientCtx)
		},
	}
	return cmd
}

// endpointFlags are the flags a lease subcommand reads when it signs no
// transaction: the key that signs its requests to the endpoint, and the
// node (and chain id) it finds the lease and provider on. The tx flags
// (--gas, --fees, --broadcast-mode, ...) would be accepted and ignored.
func endpointFlags(cmd *cobra.Command) *cobra.Command {
	f := cmd.Flags()
	f.String(flags.FlagFrom, "", "Name or address of the renter's key, which signs every request")
	auctioncli.AddEthKeyFlags(cmd, "instead of --from, the Ethereum key of a renter that bids by wallet signature")
	f.String(flags.FlagNode, "tcp://localhost:26657", "<host>:<port> to CometBFT rpc interface for this chain")
	f.String(flags.FlagChainID, "", "The network chain ID (default: client.toml's, else the node's)")
	flags.AddKeyringFlags(f)
	return cmd
}

// keyringSigner signs endpoint requests with a keyring key.
type keyringSigner struct{ clientCtx client.Context }

func (k keyringSigner) SignRequest(h http.Header, q endpoint.Request) error {
	return endpoint.KeySigner(func(msg []byte) ([]byte, []byte, error) {
		sig, pub, err := k.clientCtx.Keyring.Sign(k.clientCtx.FromName, msg, signing.SignMode_SIGN_MODE_DIRECT)
		if err != nil {
			return nil, nil, err
		}
		return sig, pub.Bytes(), nil
	}).SignRequest(h, q)
}

// proofRoot is the samples_root of the proof the chain stored for an epoch.
func proofRoot(ctx context.Context, clientCtx client.Context, leaseID, epoch uint64) ([]byte, error) {
	p, err := storedProof(ctx, clientCtx, leaseID, epoch)
	return p.SamplesRoot, err
}

// jobState says where the job stands: an exit code only once it has exited.
func jobState(st endpoint.JobStatus) string {
	switch {
	case st.Preparing != "":
		return "not started: " + st.Preparing
	case st.Refused != "":
		return "refused: " + st.Refused
	case st.Running:
		return "running"
	case st.Exited && st.ExitCode >= 0:
		return fmt.Sprintf("exited with code %d", st.ExitCode)
	case st.Exited:
		return "ended without an exit code (killed)"
	}
	return "not running"
}
