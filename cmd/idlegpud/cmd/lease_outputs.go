package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"

	"github.com/idlegpu/idlegpu/endpoint"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// outputsCommand is `lease outputs`: the job's signed output listing.
func outputsCommand() *cobra.Command {
	cmd := endpointFlags(leaseSub("outputs <lease-id>", "List the job's output files (names, sizes, sha256), signed by the provider's agent, and when they are deleted", 1,
		func(ctx context.Context, c *endpoint.Client, id uint64, _ []string, cmd *cobra.Command, clientCtx client.Context) error {
			l, err := verifiedListing(ctx, c, clientCtx, id)
			if err != nil {
				return err
			}
			if clientCtx.OutputFormat == flags.OutputFormatJSON {
				return clientCtx.PrintObjectLegacy(l)
			}
			w := cmd.OutOrStdout()
			for _, f := range l.Files {
				fmt.Fprintf(w, "%s  %12d  %s\n", f.SHA256, f.Size, f.Name)
			}
			fmt.Fprintf(w, "%d files (%d not listed: links and special files); deleted at %s\n",
				len(l.Files), l.Skipped, l.DeleteAt.UTC().Format(time.RFC3339))
			return nil
		}))
	cmd.Flags().StringP(flags.FlagOutput, "o", flags.OutputFormatText, "Output format (text|json)")
	return cmd
}

// downloadCommand is `lease download`: one output file, resumed where an
// earlier try stopped and checked against the signed listing.
func downloadCommand() *cobra.Command {
	cmd := endpointFlags(leaseSub("download <lease-id> <name>", "Download an output file (resumes a partial <file>.part; the sha256 is checked against the signed listing)", 2,
		func(ctx context.Context, c *endpoint.Client, id uint64, args []string, cmd *cobra.Command, clientCtx client.Context) error {
			l, err := verifiedListing(ctx, c, clientCtx, id)
			if err != nil {
				return err
			}
			f, ok := l.File(args[1])
			if !ok {
				return fmt.Errorf("%q is not in the output listing of lease %d (see lease outputs)", args[1], id)
			}
			dst, err := cmd.Flags().GetString("out")
			if err != nil {
				return err
			}
			if dst == "" {
				dst = filepath.Base(f.Name)
			}
			from, err := c.Download(ctx, id, f, dst)
			if err != nil {
				return err
			}
			if from > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "resumed at byte %d\n", from)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d bytes, sha256 %s (as signed)\n", dst, f.Size, f.SHA256)
			return nil
		}))
	cmd.Flags().StringP("out", "o", "", "file to write (default: the name's last element, in the current directory)")
	return cmd
}

// verifiedListing fetches the lease's output listing and checks that its
// signer is the provider's operator or one of its agents on chain.
func verifiedListing(ctx context.Context, c *endpoint.Client, clientCtx client.Context, id uint64) (endpoint.Listing, error) {
	l, signer, err := c.Outputs(ctx, id)
	if err != nil {
		return endpoint.Listing{}, err
	}
	pres, err := providertypes.NewQueryClient(clientCtx).Provider(ctx, &providertypes.QueryProviderRequest{Operator: c.Target.Provider})
	if err != nil {
		return endpoint.Listing{}, err
	}
	if s := signer.String(); s != pres.Provider.Operator && !slices.Contains(pres.Provider.Agents, s) {
		return endpoint.Listing{}, fmt.Errorf("the listing is signed by %s, neither the provider %s nor one of its agents", s, pres.Provider.Operator)
	}
	return l, nil
}
