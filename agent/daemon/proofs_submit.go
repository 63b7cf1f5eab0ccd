package daemon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/chainclient"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// prove submits every epoch that has ended and is not settled yet, for the
// ACTIVE leases the agent runs, in MsgSubmitProofs of at most
// MaxProofsPerMsg. The chain's next_epoch is the source of truth, so a
// restarted agent neither skips nor repeats an epoch.
func (d *Daemon) prove(ctx context.Context, now time.Time) error {
	provable := map[uint64]bool{}
	var floor time.Time // the oldest window still to prove: its headers stay
	for _, l := range d.reg.Snapshot() {
		if !l.Provable() {
			continue
		}
		provable[l.ID] = true
		if tl, ok := d.prover.Lease(l.ID); ok {
			if from, _, inLease := tl.Window(l.NextEpoch); inLease && (floor.IsZero() || from.Before(floor)) {
				floor = from
			}
		}
	}
	d.headers.KeepFrom(floor)
	next := func(id uint64) (uint64, error) {
		if !provable[id] {
			return math.MaxUint64, nil // ended, or not ours to prove: nothing due
		}
		// The chain's next_epoch only moves when a proof is accepted or an
		// epoch is counted missed, both after its window ended: while the
		// cached epoch's window is still open, nothing is due and the
		// query is saved (one per lease per block otherwise).
		if st, _ := d.reg.Get(id); st.NextKnown {
			if l, tracked := d.prover.Lease(id); tracked {
				if _, to, inLease := l.Window(st.NextEpoch); inLease && to.After(now) {
					return st.NextEpoch, nil
				}
			}
		}
		p, err := d.q.Progress(ctx, id)
		if err != nil {
			return 0, err
		}
		var refused bool
		d.reg.Update(id, func(l *registry.Lease) {
			l.NextEpoch, l.NextKnown = p.NextEpoch, true
			refused = l.Refused[p.NextEpoch]
		})
		if refused {
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
	var txErr *chainclient.TxError
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
	d.reg.Update(p.LeaseId, func(l *registry.Lease) {
		if l.Refused == nil {
			l.Refused = map[uint64]bool{}
		}
		l.Refused[p.Epoch] = true
	})
	d.fail("proofs", fmt.Errorf("%s refused: %w", proofName(p), err))
}

func proofName(p settlementtypes.ExecutionProof) string {
	return fmt.Sprintf("lease %d epoch %d", p.LeaseId, p.Epoch)
}
