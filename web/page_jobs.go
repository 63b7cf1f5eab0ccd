package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	sdkmath "cosmossdk.io/math"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/indexer"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// listLimit is how many rows a list page shows.
const listLimit = 50

type jobsData struct {
	Title  string
	Renter string
	EVM    string
	Jobs   []jobRow
	Leases []auctiontypes.Lease
	// Ended are the renter's ended leases from the index (the chain
	// prunes them).
	Ended []indexer.Lease
	// Each list's page.
	JobsPage, LeasesPage, EndedPage Page
}

// jobsPage: a renter's jobs and leases, newest first. Without ?renter the
// page is a form (the wallet button fills it in).
func (s *Server) jobsPage(r *http.Request) (string, any, error) {
	d := jobsData{Title: "Jobs and leases"}
	in := r.URL.Query().Get("renter")
	if in == "" {
		return "jobs", d, nil
	}
	renter, err := parseAccount(in)
	if err != nil {
		return "", nil, err
	}
	d.Renter, d.EVM = renter, evmAddress(renter)
	ctx := r.Context()
	q := auctiontypes.NewQueryClient(s.conn)
	jobsReq, err := nodePageRequest(r, "jobs")
	if err != nil {
		return "", nil, err
	}
	leasesReq, err := nodePageRequest(r, "leases")
	if err != nil {
		return "", nil, err
	}
	jobs, err := q.RenterJobs(ctx, &auctiontypes.QueryRenterJobsRequest{Renter: renter, Pagination: jobsReq})
	if err != nil {
		return "", nil, err
	}
	leases, err := q.RenterLeases(ctx, &auctiontypes.QueryRenterLeasesRequest{Renter: renter, Pagination: leasesReq})
	if err != nil {
		return "", nil, err
	}
	d.Leases = leases.Leases
	d.JobsPage = nodePage(r, "jobs", jobs.Pagination, len(jobs.Jobs))
	d.LeasesPage = nodePage(r, "leases", leases.Pagination, len(leases.Leases))
	if d.Jobs, err = s.jobRows(ctx, jobs.Jobs, leases.Leases); err != nil {
		return "", nil, err
	}
	if d.Ended, d.EndedPage, err = s.endedLeases(r, "ended", indexer.LeaseFilter{Renter: renter}); err != nil {
		return "", nil, err
	}
	return "jobs", d, nil
}

// jobRow is a job with what it paid (its leases, from the chain) and what
// came back to the renter (from the index: refunds are events, not state).
type jobRow struct {
	auctiontypes.Job
	Paid     sdk.Coin
	Refunded *sdk.Coin
}

func (s *Server) jobRows(ctx context.Context, jobs []auctiontypes.Job, leases []auctiontypes.Lease) ([]jobRow, error) {
	// The page's jobs as indexed, one by id: a page of the node's list is
	// not a page of the index's.
	refunded := make(map[uint64]sdk.Coin, len(jobs))
	for _, j := range jobs {
		ij, err := s.db.Job(ctx, j.Id)
		if errors.Is(err, indexer.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		refunded[ij.ID] = coin(ij.Refunded, ij.Denom)
	}
	rows := make([]jobRow, len(jobs))
	for i, j := range jobs {
		rows[i] = jobRow{Job: j, Paid: sdk.NewCoin(j.Spec.MaxPrice.Denom, sdkmath.ZeroInt())}
		for _, l := range leases {
			if l.JobId == j.Id && l.Paid.Denom == rows[i].Paid.Denom {
				rows[i].Paid = rows[i].Paid.Add(l.Paid)
			}
		}
		if r, ok := refunded[j.Id]; ok {
			rows[i].Refunded = &r
		}
	}
	return rows, nil
}

func pathID(r *http.Request) (uint64, error) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, badRequest("%q is not an id", r.PathValue("id"))
	}
	return id, nil
}

type jobData struct {
	Title  string
	Job    auctiontypes.Job
	EVM    string
	Bids   []auctiontypes.Bid
	Leases []auctiontypes.Lease
	// Indexed is the job's history (refunds, relayer); nil before the
	// indexer reached the block that posted it.
	Indexed *indexer.Job
}

// jobPage: one job, its bids while open, its leases, and what was refunded.
func (s *Server) jobPage(r *http.Request) (string, any, error) {
	id, err := pathID(r)
	if err != nil {
		return "", nil, err
	}
	ctx := r.Context()
	q := auctiontypes.NewQueryClient(s.conn)
	job, err := s.jobOrIndexed(ctx, id)
	if err != nil {
		return "", nil, err
	}
	d := jobData{Title: "Job " + strconv.FormatUint(id, 10), Job: job, EVM: evmAddress(job.Renter)}
	if job.Status == auctiontypes.JOB_STATUS_OPEN {
		// Bids are the node's alone; without it the banner says why none show.
		if bids, err := q.JobBids(ctx, &auctiontypes.QueryJobBidsRequest{JobId: id}); err == nil {
			d.Bids = bids.Bids
		} else if status.Code(err) != codes.Unavailable && !errors.Is(err, context.DeadlineExceeded) {
			return "", nil, err
		}
	}
	for _, lid := range job.LeaseIds {
		l, err := s.leaseOrIndexed(ctx, lid)
		if err != nil {
			return "", nil, err
		}
		d.Leases = append(d.Leases, l)
	}
	if j, err := s.db.Job(ctx, id); err == nil {
		d.Indexed = &j
	} else if !errors.Is(err, indexer.ErrNotFound) {
		return "", nil, err
	}
	return "job", d, nil
}

type leaseData struct {
	Title    string
	Lease    auctiontypes.Lease
	EVM      string
	Progress *settlementtypes.LeaseProgress
	Epochs   []indexer.Epoch
	Charts   epochCharts
	// Proven are the epochs whose samples can be fetched and checked.
	Proven []uint64
}

// leasePage: one lease, its epochs (proven, missed, excused) with each
// proof's per-GPU figures as charts.
func (s *Server) leasePage(r *http.Request) (string, any, error) {
	id, err := pathID(r)
	if err != nil {
		return "", nil, err
	}
	ctx := r.Context()
	lease, err := s.leaseOrIndexed(ctx, id)
	if err != nil {
		return "", nil, err
	}
	d := leaseData{Title: "Lease " + strconv.FormatUint(id, 10), Lease: lease, EVM: evmAddress(lease.Renter)}
	// The node answers an empty record for a lease it holds no progress of
	// (one it pruned, or known only to the index): that is no progress, not
	// "0 proven, epoch 0s".
	if p, err := settlementtypes.NewQueryClient(s.conn).LeaseProgress(ctx, &settlementtypes.QueryLeaseProgressRequest{LeaseId: id}); err == nil && p.Progress.EpochSeconds > 0 {
		d.Progress = &p.Progress
	}
	if d.Epochs, err = s.db.Epochs(ctx, id, maxEpochs, 0); err != nil {
		return "", nil, err
	}
	d.Charts = leaseCharts(d.Epochs)
	for _, e := range d.Epochs {
		if e.Status == "proven" {
			d.Proven = append(d.Proven, e.Epoch)
		}
	}
	return "lease", d, nil
}
