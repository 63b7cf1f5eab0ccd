package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	sdkmath "cosmossdk.io/math"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// proofsPerTx is the proofs per MsgSubmitProofs of a busy provider's batch.
const proofsPerTx = 100

// benchLease is an ACTIVE 1-GPU lease and the next epoch to prove.
type benchLease struct {
	id       uint64
	gpu      string
	start    time.Time
	duration uint64
	epochSec uint64
	next     uint64
	// waiting: epoch next's window held no block, so no proof of it can
	// exist. The chain takes epochs in order and excuses such an epoch at
	// its due time (x/settlement/keeper/halts.go: unprovable); the lease
	// waits for that (excused).
	waiting bool
}

// resyncLeases reads where the chain has settled each of p's leases.
func (m *market) resyncLeases(ctx context.Context, p *provider) error {
	sq := settlementtypes.NewQueryClient(m.c.q)
	for _, l := range p.leases {
		res, err := sq.LeaseProgress(ctx, &settlementtypes.QueryLeaseProgressRequest{LeaseId: l.id})
		if err != nil {
			return fmt.Errorf("lease %d progress: %w", l.id, err)
		}
		l.epochSec, l.next = res.Progress.EpochSeconds, res.Progress.NextEpoch
	}
	return nil
}

// resyncSequences reloads the accounts' sequences after a refused tx left
// later ones of its lane unsent.
func (m *market) resyncSequences(ctx context.Context) error {
	return parallel(len(m.providers), 16, func(i int) error { return m.c.load(ctx, m.providers[i].account) })
}

// bidSource: every provider bids on the open jobs in turn from its bid
// offer (a first bid on a job, then replacements at a new price).
type bidSource struct {
	m *market
	k int
}

// txSize is the size of a signed bid (the kvstore baseline's txs match it).
func (s *bidSource) txSize() (int, error) {
	p := s.m.providers[0]
	tx, err := s.m.c.sign(p.account, 400_000, s.bid(p, 0))
	p.seq-- // not sent
	return len(tx), err
}

func (s *bidSource) bid(p *provider, k int) *auctiontypes.MsgPlaceBid {
	return &auctiontypes.MsgPlaceBid{Signer: p.String(), Provider: p.String(), JobId: s.m.bidJobs[(p.index+k)%len(s.m.bidJobs)],
		OfferId: p.bidOffer, Price: bidFloor.AddAmount(sdkmath.NewInt(int64(k%1000) * 100)), GpuCount: 1}
}

func (s *bidSource) Step(_ context.Context, n int) ([][]Tx, error) {
	per := (n + len(s.m.providers) - 1) / len(s.m.providers)
	lanes := make([][]Tx, len(s.m.providers))
	err := parallel(len(s.m.providers), 2, func(i int) error {
		p := s.m.providers[i]
		for t := range per {
			tx, err := s.m.c.sign(p.account, 400_000, s.bid(p, s.k+t))
			if err != nil {
				return err
			}
			lanes[i] = append(lanes[i], Tx{Bytes: tx, Units: 1})
		}
		return nil
	})
	s.k += per
	return lanes, err
}

func (s *bidSource) After(ctx context.Context, r StepResult) error {
	if r.Accepted < r.Txs {
		return s.m.resyncSequences(ctx)
	}
	return nil
}

// proofSource: every provider proves the ended epochs of its leases, 100
// proofs to a MsgSubmitProofs, each bound to a committed header inside its
// window — what the agent sends, at a rate no agent would.
type proofSource struct {
	m *market
}

func (s *proofSource) Step(ctx context.Context, n int) ([][]Tx, error) {
	blocks := s.m.c.poller.Blocks()
	if len(blocks) == 0 {
		return nil, fmt.Errorf("no blocks seen yet")
	}
	if err := s.m.excused(ctx); err != nil {
		return nil, err
	}
	per := (n + len(s.m.providers) - 1) / len(s.m.providers)
	lanes := make([][]Tx, len(s.m.providers))
	err := parallel(len(s.m.providers), 2, func(i int) error {
		p := s.m.providers[i]
		for range per {
			var proofs []settlementtypes.ExecutionProof
			for len(proofs) < proofsPerTx {
				added := false
				for _, l := range p.leases {
					if len(proofs) == proofsPerTx {
						break
					}
					pr, ok, err := l.proof(blocks)
					if err != nil {
						return err
					}
					if ok {
						proofs = append(proofs, pr)
						l.next++
						added = true
					}
				}
				if !added {
					break // every lease is proven up to the chain's last block
				}
			}
			if len(proofs) == 0 {
				break
			}
			// ≈ 125k gas a proof (docs/benchmarks.md), with room.
			tx, err := s.m.c.sign(p.account, uint64(len(proofs))*160_000+200_000,
				&settlementtypes.MsgSubmitProofs{Signer: p.String(), Provider: p.String(), Proofs: proofs})
			if err != nil {
				return err
			}
			lanes[i] = append(lanes[i], Tx{Bytes: tx, Units: len(proofs)})
		}
		return nil
	})
	return lanes, err
}

func (s *proofSource) After(ctx context.Context, r StepResult) error {
	if r.Accepted == r.Txs && r.Failed == 0 && r.Lost == 0 {
		return nil
	}
	return s.m.resync(ctx)
}

// excused moves on the waiting leases whose unprovable epoch the chain
// has excused.
func (m *market) excused(ctx context.Context) error {
	var waiting []*benchLease
	for _, p := range m.providers {
		for _, l := range p.leases {
			if l.waiting {
				waiting = append(waiting, l)
			}
		}
	}
	sq := settlementtypes.NewQueryClient(m.c.q)
	return parallel(len(waiting), 16, func(i int) error {
		l := waiting[i]
		res, err := sq.LeaseProgress(ctx, &settlementtypes.QueryLeaseProgressRequest{LeaseId: l.id})
		if err != nil {
			return fmt.Errorf("lease %d progress: %w", l.id, err)
		}
		if res.Progress.NextEpoch > l.next {
			l.next, l.waiting = res.Progress.NextEpoch, false
		}
		return nil
	})
}

// resync reloads every account's sequence and where the chain has settled
// every lease, after a step whose txs did not all land.
func (m *market) resync(ctx context.Context) error {
	if err := m.resyncSequences(ctx); err != nil {
		return err
	}
	return parallel(len(m.providers), 16, func(i int) error { return m.resyncLeases(ctx, m.providers[i]) })
}

// proof builds epoch l.next's proof if the epoch has ended by the last
// block seen and a block of the window is known: three samples a GPU (the
// window's ends and its middle, 1 s apart) at a plausible 500 W.
func (l *benchLease) proof(blocks []Block) (settlementtypes.ExecutionProof, bool, error) {
	if l.waiting {
		return settlementtypes.ExecutionProof{}, false, nil
	}
	from, to, ok := settlementtypes.EpochWindow(l.start, l.duration, l.epochSec, l.next)
	if !ok || to.After(blocks[len(blocks)-1].Time) {
		return settlementtypes.ExecutionProof{}, false, nil
	}
	i := sort.Search(len(blocks), func(i int) bool { return !blocks[i].Time.Before(from) })
	if i == len(blocks) || blocks[i].Time.After(to) {
		// No block inside this window (blocks slower than epochs under
		// load): the epoch cannot be proven. Consecutive heights around it
		// show the window empty, and the chain excuses it when the next
		// epoch's proof arrives, as the agent does; otherwise the lease
		// waits for the chain to excuse it at its due time.
		if i > 0 && i < len(blocks) && blocks[i].Height == blocks[i-1].Height+1 {
			l.next++
			return l.proof(blocks)
		}
		l.waiting = true
		return settlementtypes.ExecutionProof{}, false, nil
	}
	var samples []settlementtypes.Sample
	for j, t := 0, from; !t.After(to); j, t = j+1, t.Add(time.Second) {
		samples = append(samples, settlementtypes.Sample{GpuUuid: l.gpu, TimestampMs: t.UnixMilli(), UtilBps: 9700,
			MemUsedMib: 70_000, EnergyMj: 1_000_000_000 + uint64(j)*500_000, PowerMw: 500_000, TempC: 66, SmClockMhz: 1980, Procs: 1})
	}
	p, _, err := settlementtypes.BuildProof(settlementtypes.ProofInput{
		LeaseID: l.id, Epoch: l.next, WindowStart: from, WindowEnd: to, ChallengeHeight: blocks[i].Height,
		ChallengeHash: blocks[i].Hash, GPUs: []string{l.gpu}, Samples: samples, ImageDigest: digest, AgentVersion: "loadbench",
	})
	return p, err == nil, err
}

// backlog counts the epochs provable now (ended, not proven).
func (m *market) backlog() int {
	tip := m.c.poller.Latest().Time
	n := 0
	for _, p := range m.providers {
		for _, l := range p.leases {
			if !l.waiting && l.epochSec > 0 && tip.After(l.start) {
				ended := min(uint64(tip.Sub(l.start)/time.Second)/l.epochSec, settlementtypes.EpochCount(l.duration, l.epochSec))
				if ended > l.next {
					n += int(ended - l.next)
				}
			}
		}
	}
	return n
}
