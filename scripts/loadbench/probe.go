package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cosmos/cosmos-sdk/types/query"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// Probe is one MsgPostJob's way to its lease (instant match).
type Probe struct {
	PostHeight, LeaseHeight int64
	Seconds                 float64 // broadcast → the lease's block committed
}

// Blocks is how many blocks after the post's the lease was created.
func (p Probe) Blocks() int64 { return p.LeaseHeight - p.PostHeight }

// prober posts instant-match jobs one after another (only the probe
// provider's A100s fit them) while a sweep loads the chain.
type prober struct {
	m  *market
	mu sync.Mutex
	rs []Probe
}

func (p *prober) run(ctx context.Context, every time.Duration) {
	for ctx.Err() == nil {
		r, err := p.once(ctx)
		if err != nil {
			if ctx.Err() == nil {
				logf("probe: %v", err)
			}
		} else {
			p.mu.Lock()
			p.rs = append(p.rs, r)
			p.mu.Unlock()
		}
		select {
		case <-time.After(every):
		case <-ctx.Done():
		}
	}
}

func (p *prober) results() []Probe {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Probe(nil), p.rs...)
}

func (p *prober) once(ctx context.Context) (Probe, error) {
	c := p.m.c
	sent := time.Now()
	o, err := c.submit(ctx, p.m.prober, 2_000_000, &auctiontypes.MsgPostJob{Renter: p.m.prober.String(), Spec: jobSpec(a100, probeJobMax, 0)})
	if err != nil {
		return Probe{}, err
	}
	aq := auctiontypes.NewQueryClient(c.q)
	jobs, err := aq.RenterJobs(ctx, &auctiontypes.QueryRenterJobsRequest{Renter: p.m.prober.String(),
		Pagination: &query.PageRequest{Limit: 10_000}})
	if err != nil || len(jobs.Jobs) == 0 {
		return Probe{}, fmt.Errorf("the probe's job: %v", err)
	}
	var job uint64
	for _, j := range jobs.Jobs {
		job = max(job, j.Id)
	}
	leases, err := aq.RenterLeases(ctx, &auctiontypes.QueryRenterLeasesRequest{Renter: p.m.prober.String(),
		Pagination: &query.PageRequest{Limit: 10_000}})
	if err != nil {
		return Probe{}, err
	}
	var lease *auctiontypes.Lease
	for i, l := range leases.Leases {
		if l.JobId == job {
			lease = &leases.Leases[i]
		}
	}
	if lease == nil {
		return Probe{}, fmt.Errorf("job %d has no lease after its block", job)
	}
	created := lease.CreatedAt
	for _, b := range c.poller.Blocks() {
		if b.Time.Equal(created) {
			return Probe{PostHeight: o.Height, LeaseHeight: b.Height, Seconds: b.Observed.Sub(sent).Seconds()}, nil
		}
	}
	return Probe{}, fmt.Errorf("job %d's lease was created at %s, no block seen at that time", job, created)
}
