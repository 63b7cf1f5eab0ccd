// Package reconciler brings the agent's jobs in line with the provider's
// leases on chain, once per block: it starts what the chain says started,
// tracks ACTIVE leases for proving, stops jobs at their lease's end,
// closes leases whose job ended early, and retires what ended
// (docs/design.md, "The agent"). It holds no state of its own: the lease
// registry, the job records and the prover are the daemon's, shared with
// the sampler and the endpoint.
package reconciler

import (
	"context"
	"log/slog"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/proof"
	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	// KeepFinished is how long an ended lease's samples and job record
	// stay (the renter may still fetch samples and logs).
	KeepFinished = 24 * time.Hour
)

// Chain is what the reconciler reads of the chain.
type Chain interface {
	ProviderLeases(ctx context.Context, provider string, status auctiontypes.LeaseStatus) ([]auctiontypes.Lease, error)
	Lease(ctx context.Context, id uint64) (auctiontypes.Lease, error)
	Progress(ctx context.Context, leaseID uint64) (settlementtypes.LeaseProgress, error)
}

// Submitter sends the provider's transactions (start, close).
type Submitter interface {
	Submit(ctx context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error)
}

// Prover is the part of agent/prover the reconciler drives: which leases
// are proven, up to when, and when their samples go.
type Prover interface {
	Track(l proof.Lease) error
	Cut(id, durationSeconds uint64)
	Forget(leaseID uint64) error
}

// Adopter finds a job an earlier run of the agent started.
type Adopter interface {
	Adopt(ctx context.Context, spec runner.Spec) (runner.Job, error)
}

// Reconciler is one block's reconciliation, wired by the daemon.
type Reconciler struct {
	Provider, Signer string
	Chain            Chain
	Tx               Submitter
	Prover           Prover
	Runner           Adopter
	Leases           *registry.Registry
	Records          *records.Store
	// Settlement is x/settlement's params as the agent last read them.
	Settlement settlementtypes.Params
	// WorkDir holds each lease's lease-<id> directory, removed KeepFinished
	// after its end.
	WorkDir string
	// Track marks a lease tracked and writes the ticks kept before it was
	// seen ACTIVE (the sampler's backfill).
	Track func(auctiontypes.Lease)
	// Finalise lists a stopped job's outputs for the renter.
	Finalise func(leaseID uint64, endedAt time.Time) error
	// Starting reports a lease whose manifest the endpoint is acting on:
	// its record is the endpoint's until it is done.
	Starting func(leaseID uint64) bool
	// Fail reports one lease's trouble; the others go on.
	Fail    func(part string, err error)
	Metrics *metrics.Metrics
	Log     *slog.Logger
}
