package web

import (
	"context"
	"errors"
	"strings"

	sdkmath "cosmossdk.io/math"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/indexer"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// A job or lease the node does not answer for is shown from the index,
// which keeps them: the node pruned it (NotFound), or it cannot be reached
// or fails (the layout's banner then says the node is down, and the page
// shows what the index last saw). Only when the index has none either is
// the node's error the page's.

// jobOrIndexed is the chain's job, else the index's.
func (s *Server) jobOrIndexed(ctx context.Context, id uint64) (auctiontypes.Job, error) {
	res, err := auctiontypes.NewQueryClient(s.conn).Job(ctx, &auctiontypes.QueryJobRequest{Id: id})
	if err == nil {
		return res.Job, nil
	}
	j, ierr := s.db.Job(ctx, id)
	if errors.Is(ierr, indexer.ErrNotFound) || (ierr != nil && status.Code(err) != codes.NotFound) {
		return auctiontypes.Job{}, err
	}
	if ierr != nil {
		return auctiontypes.Job{}, ierr
	}
	return auctiontypes.Job{
		Id: j.ID, Renter: j.Renter, Status: auctiontypes.JobStatus(enumValue(auctiontypes.JobStatus_value, "JOB_STATUS_", j.Status)),
		CreatedAt: j.CreatedAt, Deposit: coin(j.Deposit, j.Denom), LeaseIds: j.LeaseIDs,
		ClearingPrice: clearing(j.ClearingPrice, j.Denom),
		Spec: auctiontypes.JobSpec{
			GpuCount: j.GPUCount, Models: j.Models, Regions: j.Regions, DurationSeconds: j.DurationSeconds,
			Tier: auctiontypes.Tier(enumValue(auctiontypes.Tier_value, "TIER_", j.Tier)), Preemptible: j.Preemptible,
			Image: j.Image, MaxPrice: coin(j.MaxPrice, j.Denom),
		},
	}, nil
}

// leaseOrIndexed is the chain's lease, else the index's.
func (s *Server) leaseOrIndexed(ctx context.Context, id uint64) (auctiontypes.Lease, error) {
	res, err := auctiontypes.NewQueryClient(s.conn).Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: id})
	if err == nil {
		return res.Lease, nil
	}
	l, ierr := s.db.Lease(ctx, id)
	if errors.Is(ierr, indexer.ErrNotFound) || (ierr != nil && status.Code(err) != codes.NotFound) {
		return auctiontypes.Lease{}, err
	}
	if ierr != nil {
		return auctiontypes.Lease{}, ierr
	}
	return auctiontypes.Lease{
		Id: l.ID, JobId: l.JobID, Renter: l.Renter, Provider: l.Provider, OfferId: l.OfferID, GpuUuids: l.GPUUUIDs,
		Price: coin(l.Price, l.Denom), Escrow: coin(l.Escrow, l.Denom), Paid: coin(l.Paid, l.Denom),
		Tier: auctiontypes.Tier(enumValue(auctiontypes.Tier_value, "TIER_", l.Tier)), DurationSeconds: l.DurationSeconds,
		Status:    auctiontypes.LeaseStatus(enumValue(auctiontypes.LeaseStatus_value, "LEASE_STATUS_", l.Status)),
		CreatedAt: l.CreatedAt, Start: l.StartedAt, EndedAt: l.EndedAt, Reason: l.Reason,
	}, nil
}

func coin(amount int64, denom string) sdk.Coin {
	if denom == "" {
		return sdk.Coin{}
	}
	return sdk.NewCoin(denom, sdkmath.NewInt(amount))
}

// clearing is a clearing price, empty before the job cleared.
func clearing(amount int64, denom string) sdk.Coin {
	if amount == 0 {
		return sdk.Coin{}
	}
	return coin(amount, denom)
}

// enumValue reads the index's short lower-case enum name ("completed").
func enumValue(values map[string]int32, prefix, short string) int32 {
	return values[prefix+strings.ToUpper(strings.ReplaceAll(short, " ", "_"))]
}
