package daemon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/chain"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// prove submits every epoch that has ended and is not settled yet, for the
// ACTIVE leases the agent runs, in MsgSubmitProofs of at most
// MaxProofsPerMsg. The chain's next_epoch is the source of truth, so a
// restarted agent neither skips nor repeats an epoch.
func (d *Daemon) prove(ctx context.Context, now time.Time) error {
	d.mu.Lock()
	active := map[uint64]bool{}
	var floor time.Time // the oldest window still to prove: its headers stay
	for id, l := range d.leases {
		// A CLOSING lease was ended early: its ended epochs are still proven.
		active[id] = (l.Status == auctiontypes.LEASE_STATUS_ACTIVE || l.Status == auctiontypes.LEASE_STATUS_CLOSING) && d.tracked[id]
		if tl, ok := d.prover.Lease(id); ok && active[id] {
			if from, _, inLease := tl.Window(d.nextEpoch[id]); inLease && (floor.IsZero() || from.Before(floor)) {
				floor = from
			}
		}
	}
	d.mu.Unlock()
	d.headers.KeepFrom(floor)
	next := func(id uint64) (uint64, error) {
		if !active[id] {
			return math.MaxUint64, nil // ended, or not ours to prove: nothing due
		}
		// The chain's next_epoch only moves when a proof is accepted or an
		// epoch is counted missed, both after its window ended: while the
		// cached epoch's window is still open, nothing is due and the
		// query is saved (one per lease per block otherwise).
		d.mu.Lock()
		cached, ok := d.nextEpoch[id]
		d.mu.Unlock()
		if ok {
			if l, tracked := d.prover.Lease(id); tracked {
				if _, to, inLease := l.Window(cached); inLease && to.After(now) {
					return cached, nil
				}
			}
		}
		p, err := d.q.Progress(ctx, id)
		if err != nil {
			return 0, err
		}
		d.mu.Lock()
		d.nextEpoch[id] = p.NextEpoch
		bad := d.bad[[2]uint64{id, p.NextEpoch}]
		d.mu.Unlock()
		if bad {
			// Refused by the chain: it counts the epoch missed after the
			// grace and moves next_epoch on; later epochs wait for that.
			return math.MaxUint64, nil
		}
		return p.NextEpoch, nil
	}
	proofs, err := d.prover.Due(now, next, d.headers)
	if err != nil {
		return err
	}
	for len(proofs) > 0 {
		n := min(len(proofs), settlementtypes.MaxProofsPerMsg)
		d.submitProofs(ctx, proofs[:n])
		proofs = proofs[n:]
	}
	return nil
}

// submitProofs sends a batch; when the chain refuses it, each proof goes
// alone so that one bad epoch does not hold back the others.
func (d *Daemon) submitProofs(ctx context.Context, batch []settlementtypes.ExecutionProof) {
	res, err := d.chain.Submit(ctx, &settlementtypes.MsgSubmitProofs{Signer: d.signer, Provider: d.provider, Proofs: batch})
	if err == nil {
		d.m.ProofsSent.Add(float64(len(batch)))
		d.health.proofs(len(batch))
		d.log.Info("proofs accepted", "count", len(batch), "height", res.Height, "tx", res.TxHash, "first", proofName(batch[0]))
		return
	}
	var txErr *chain.TxError
	if !errors.As(err, &txErr) {
		d.fail("proofs", err) // node trouble: the same proofs are due next block
		return
	}
	if len(batch) > 1 {
		for _, p := range batch {
			d.submitProofs(ctx, []settlementtypes.ExecutionProof{p})
		}
		return
	}
	p := batch[0]
	d.m.ProofsFailed.Inc()
	if errors.Is(err, settlementtypes.ErrEpochProven) {
		return // settled already (by an earlier run): nothing lost
	}
	d.mu.Lock()
	d.bad[[2]uint64{p.LeaseId, p.Epoch}] = true
	d.mu.Unlock()
	d.fail("proofs", fmt.Errorf("%s refused: %w", proofName(p), err))
}

func proofName(p settlementtypes.ExecutionProof) string {
	return fmt.Sprintf("lease %d epoch %d", p.LeaseId, p.Epoch)
}

// preemptHot preempts the BRONZE leases the sampler found on a GPU over a
// limit: the job stops and the lease ends PREEMPTED, which the chain does
// not count against the provider.
func (d *Daemon) preemptHot(ctx context.Context) {
	d.mu.Lock()
	queued := d.preempt
	d.preempt = map[uint64]string{}
	d.mu.Unlock()
	for id, reason := range queued {
		if err := d.stopJob(ctx, id, reason); err != nil {
			d.fail("preempt", err)
		}
		if _, err := d.chain.Submit(ctx, &auctiontypes.MsgPreemptLease{Signer: d.signer, LeaseId: id, Reason: reason}); err != nil {
			d.fail("preempt", fmt.Errorf("lease %d: %w", id, err))
			continue
		}
		d.log.Warn("lease preempted", "lease", id, "reason", reason)
		d.mu.Lock()
		if l, ok := d.leases[id]; ok { // not queued again before the next reconcile
			l.Status = auctiontypes.LEASE_STATUS_PREEMPTED
			d.leases[id] = l
		}
		d.mu.Unlock()
	}
}

// claim moves the provider's unclaimed rewards to its account. Only the
// operator may claim; an agent with its own key leaves that to the operator.
func (d *Daemon) claim(ctx context.Context) error {
	rewards, err := d.q.Rewards(ctx, d.provider)
	if err != nil {
		return err
	}
	for _, c := range rewards {
		f, _ := new(big.Float).SetInt(c.Amount.BigInt()).Float64()
		d.m.Earnings.WithLabelValues(c.Denom).Set(f)
	}
	if rewards.IsZero() || d.signer != d.provider {
		return nil
	}
	res, err := d.chain.Submit(ctx, &settlementtypes.MsgClaimRewards{Operator: d.provider})
	if err != nil {
		return err
	}
	for _, c := range rewards {
		d.m.Earnings.WithLabelValues(c.Denom).Set(0)
	}
	d.log.Info("rewards claimed", "amount", sdk.Coins(rewards).String(), "tx", res.TxHash)
	return nil
}
