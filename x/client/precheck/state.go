package precheck

import (
	"context"
	"fmt"
	"strings"

	gogogrpc "github.com/cosmos/gogoproto/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cosmos/cosmos-sdk/client"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// Online reports whether the checks that read the chain run: with
// --generate-only or --offline a tx is built without a node.
func Online(clientCtx client.Context) bool { return !clientCtx.GenerateOnly && !clientCtx.Offline }

// Lease refuses a lease id the chain does not hold.
func Lease(ctx context.Context, conn gogogrpc.ClientConn, id uint64) error {
	_, err := auctiontypes.NewQueryClient(conn).Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: id})
	return found(err, "lease", id)
}

// Job returns the job with id, or says the chain holds none.
func Job(ctx context.Context, conn gogogrpc.ClientConn, id uint64) (auctiontypes.Job, error) {
	res, err := auctiontypes.NewQueryClient(conn).Job(ctx, &auctiontypes.QueryJobRequest{Id: id})
	if err != nil {
		return auctiontypes.Job{}, found(err, "job", id)
	}
	return res.Job, nil
}

// Offer returns the offer with id, or says the chain holds none.
func Offer(ctx context.Context, conn gogogrpc.ClientConn, id uint64) (offertypes.Offer, error) {
	res, err := offertypes.NewQueryClient(conn).Offer(ctx, &offertypes.QueryOfferRequest{Id: id})
	if err != nil {
		return offertypes.Offer{}, found(err, "offer", id)
	}
	return res.Offer, nil
}

// PaymentDenom refuses a denom the market does not take: x/offer's
// payment_denoms, which the chain checks prices and jobs against.
func PaymentDenom(ctx context.Context, conn gogogrpc.ClientConn, denom string) error {
	res, err := offertypes.NewQueryClient(conn).Params(ctx, &offertypes.QueryParamsRequest{})
	if err != nil {
		return err
	}
	if res.Params.AcceptsDenom(denom) {
		return nil
	}
	return fmt.Errorf("the market takes %s, not %s (x/offer payment_denoms)", strings.Join(res.Params.PaymentDenoms, ", "), denom)
}

// StakeDenom refuses a stake in another denom than x/provider's
// min_stake_per_gpu, which every bond and unbond must be in.
func StakeDenom(ctx context.Context, conn gogogrpc.ClientConn, denom string) error {
	res, err := providertypes.NewQueryClient(conn).Params(ctx, &providertypes.QueryParamsRequest{})
	if err != nil {
		return err
	}
	if want := res.Params.StakeDenom(); denom != want {
		return fmt.Errorf("stake is bonded in %s, not %s (x/provider min_stake_per_gpu)", want, denom)
	}
	return nil
}

// GPUModels refuses a model the chain's GPU model table (x/settlement
// gpu_models) does not list: no GPU of it can register, so a job asking
// for it would wait out its bid window unmatched.
func GPUModels(ctx context.Context, conn gogogrpc.ClientConn, models []string) error {
	if len(models) == 0 {
		return nil
	}
	res, err := settlementtypes.NewQueryClient(conn).Params(ctx, &settlementtypes.QueryParamsRequest{})
	if err != nil {
		return err
	}
	for _, m := range models {
		if _, ok := res.Params.GPUModel(m); ok {
			continue
		}
		known := make([]string, len(res.Params.GpuModels))
		for i, k := range res.Params.GpuModels {
			known[i] = fmt.Sprintf("%q", k.Model)
		}
		return fmt.Errorf("%q is not in the chain's GPU model table (x/settlement gpu_models): %s", m, strings.Join(known, ", "))
	}
	return nil
}

// found turns a query's NotFound into "<what> <id> not found"; any other
// error is the query's.
func found(err error, what string, id uint64) error {
	if status.Code(err) == codes.NotFound {
		return fmt.Errorf("%s %d not found", what, id)
	}
	return err
}
