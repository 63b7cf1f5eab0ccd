// Package intake is the agent's side of the renter endpoint (package
// endpoint serves the protocol): a lease's manifest admitted against the
// chain and the provider's policy, its inputs fetched, its job recorded
// and started and then its lease started on chain; and what a renter
// reads back (status, logs, an epoch's samples). docs/design.md, "The
// agent", and agent/README.md say what each answer means.
package intake

import (
	"context"
	"log/slog"
	"sync"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/jobdata"
	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// Chain is what the intake reads of the chain.
type Chain interface {
	Lease(ctx context.Context, id uint64) (auctiontypes.Lease, error)
	Job(ctx context.Context, id uint64) (auctiontypes.Job, error)
	Progress(ctx context.Context, leaseID uint64) (settlementtypes.LeaseProgress, error)
}

// Submitter sends MsgStartLease.
type Submitter interface {
	Submit(ctx context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error)
}

// Samples is the prover's store of recorded samples.
type Samples interface {
	Samples(leaseID, epoch uint64) ([]settlementtypes.Sample, bool)
}

// Intake answers the endpoint for one provider. Its exported fields are
// the daemon's parts, set once before the first request; its own state
// is which leases' manifests are being acted on and which wait for their
// inputs.
type Intake struct {
	Provider, Signer string
	Chain            Chain
	Tx               Submitter
	Runner           runner.Runner
	Leases           *registry.Registry
	Records          *records.Store
	Prover           Samples
	// Data fetches inputs and keeps outputs; nil fetches nothing.
	Data *jobdata.Store
	// WorkDir holds each lease's lease-<id> directory (an ended job's log).
	WorkDir string
	// Acceptable is the provider's policy and the machine's state applied
	// to a lease's job; its error refuses the lease.
	Acceptable func(l auctiontypes.Lease, job auctiontypes.Job) error
	// EgressMbps is the egress a lease's job runs with.
	EgressMbps func(l auctiontypes.Lease, job auctiontypes.Job) uint32
	// Poke asks the daemon for a step now (a lease just started).
	Poke func()
	Log  *slog.Logger

	// starting serialises Accept per lease; prep follows the leases whose
	// job waits for its inputs (preparing.go).
	starting sync.Map
	prep     preparations
}

var (
	_ endpoint.Leases = (*Intake)(nil)
	_ endpoint.Jobs   = (*Intake)(nil)
)

// Starting reports a lease whose manifest is being acted on: until it is
// done, its record is the intake's, not the reconciler's.
func (in *Intake) Starting(leaseID uint64) bool {
	_, busy := in.starting.Load(leaseID)
	return busy
}
