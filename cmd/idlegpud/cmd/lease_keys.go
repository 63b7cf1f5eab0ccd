package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"

	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// addKeyCommand is `lease add-key`: the renter makes an API key for its
// lease's inbound service (or reuses one, to serve a deployment of several
// leases with one key) and registers its SHA-256 at the provider. The key
// goes to stdout and nowhere else: the provider holds only its hash.
func addKeyCommand() *cobra.Command {
	cmd := endpointFlags(leaseSub("add-key <lease-id> [key]", "Register an API key for the lease's inbound service: a new one, printed, or the given one (the same key on several leases)", 1,
		func(ctx context.Context, c *endpoint.Client, id uint64, args []string, cmd *cobra.Command, clientCtx client.Context) error {
			key := ""
			if len(args) > 1 {
				key = args[1]
				if !strings.HasPrefix(key, ingress.KeyPrefix) {
					return fmt.Errorf("a key starts with %s; run add-key without one to make it", ingress.KeyPrefix)
				}
			} else {
				var err error
				if key, _, err = ingress.NewKey(); err != nil {
					return err
				}
			}
			if err := c.AddKey(ctx, id, ingress.HashKey(key).String()); err != nil {
				return err
			}
			if url, err := serviceURL(ctx, clientCtx, id); err == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "lease %d serves at %s to this key (Authorization: Bearer <key>)\n", id, url)
			}
			fmt.Fprintln(cmd.OutOrStdout(), key)
			return nil
		}))
	cmd.Args = cobra.RangeArgs(1, 2)
	return cmd
}

// revokeKeyCommand is `lease revoke-key`: the provider refuses the key from
// its answer on.
func revokeKeyCommand() *cobra.Command {
	return endpointFlags(leaseSub("revoke-key <lease-id> <key or its sha256>", "Revoke an API key of the lease's inbound service at once", 2,
		func(ctx context.Context, c *endpoint.Client, id uint64, args []string, cmd *cobra.Command, _ client.Context) error {
			hash := args[1]
			if strings.HasPrefix(hash, ingress.KeyPrefix) {
				hash = ingress.HashKey(hash).String()
			}
			if err := c.RevokeKey(ctx, id, hash); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "key %s revoked for lease %d\n", hash, id)
			return nil
		}))
}

// serviceURL is where a lease's inbound service is served: its hostname
// under the ingress domain its offer publishes.
func serviceURL(ctx context.Context, clientCtx client.Context, id uint64) (string, error) {
	l, err := auctiontypes.NewQueryClient(clientCtx).Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: id})
	if err != nil {
		return "", err
	}
	o, err := offertypes.NewQueryClient(clientCtx).Offer(ctx, &offertypes.QueryOfferRequest{Id: l.Lease.OfferId})
	if err != nil {
		return "", err
	}
	if o.Offer.Terms.IngressDomain == "" {
		return "", fmt.Errorf("offer %d has no ingress", l.Lease.OfferId)
	}
	return "https://" + offertypes.LeaseHostname(id, o.Offer.Terms.IngressDomain), nil
}
