package indexer

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// writer applies one block's events inside its transaction.
type writer struct {
	ctx    context.Context
	db     *DB
	tx     *tx
	height int64
	time   int64
	// idx numbers the block's events in order; it keys rows an event makes
	// that have no id of their own (slashes, claims).
	idx     int
	payouts map[payoutKey]*payout
}

// payoutKey sums a block's accepted proofs per provider and denom.
type payoutKey struct{ provider, denom string }

type payout struct {
	paid, fee, epochs int64
}

// exec runs a cached statement in the block's transaction.
func (w *writer) exec(query string, args ...any) error {
	st, err := w.db.stmt(w.ctx, query)
	if err != nil {
		return err
	}
	return w.tx.stmtExec(w.ctx, st, args...)
}

// queryRow runs a cached one-row query in the block's transaction.
func (w *writer) queryRow(query string, args ...any) *sql.Row {
	st, err := w.db.stmt(w.ctx, query)
	if err != nil {
		return w.tx.QueryRowContext(w.ctx, query, args...) // reports the same error
	}
	return w.tx.stmtQueryRow(w.ctx, st, args...)
}

// amount is a coin's amount in micro-units; a nil coin amount is 0.
func amount(c sdk.Coin) (int64, error) {
	if c.Amount.IsNil() {
		return 0, nil
	}
	if !c.Amount.IsInt64() || c.Amount.IsNegative() {
		return 0, fmt.Errorf("amount %s does not fit an int64", c)
	}
	return c.Amount.Int64(), nil
}

// amounts converts several coins at once.
func amounts(cs ...sdk.Coin) ([]int64, error) {
	out := make([]int64, len(cs))
	for i, c := range cs {
		a, err := amount(c)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// short is an enum's name without its prefix, lower-cased: "active" for
// LEASE_STATUS_ACTIVE.
func short(name, prefix string) string {
	return strings.ToLower(strings.TrimPrefix(name, prefix))
}

func leaseStatus(s auctiontypes.LeaseStatus) string { return short(s.String(), "LEASE_STATUS_") }
func jobStatus(s auctiontypes.JobStatus) string     { return short(s.String(), "JOB_STATUS_") }

// parseJobStatus is the inverse of jobStatus.
func parseJobStatus(s string) auctiontypes.JobStatus {
	return auctiontypes.JobStatus(auctiontypes.JobStatus_value["JOB_STATUS_"+strings.ToUpper(s)])
}

func joinIDs(ids []uint64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(parts, ",")
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// apply indexes one typed event; proofs are the proofs of the tx that
// emitted it (nil outside a tx). Events the web app does not show are
// ignored.
func (w *writer) apply(ev proto.Message, proofs map[epochKey]*settlementtypes.ExecutionProof) error {
	w.idx++
	var err error
	switch e := ev.(type) {
	case *auctiontypes.EventJobPosted:
		err = w.jobPosted(e)
	case *auctiontypes.EventJobCleared:
		err = w.jobCleared(e)
	case *auctiontypes.EventJobExpired:
		err = w.exec(`UPDATE jobs SET status = 'expired', ended_height = ?, ended_time = ? WHERE id = ?`, w.height, w.time, e.JobId)
	case *auctiontypes.EventJobCancelled:
		err = w.jobCancelled(e)
	case *auctiontypes.EventSignedJobRelayed:
		err = w.signedJobRelayed(e)
	case *auctiontypes.EventEscrowRefunded:
		err = w.escrowRefunded(e)
	case *auctiontypes.EventLeaseStarted:
		err = w.exec(`UPDATE leases SET status = 'active', started_height = ?, started_time = ? WHERE id = ?`, w.height, w.time, e.LeaseId)
	case *auctiontypes.EventLeaseClosing:
		err = w.exec(`UPDATE leases SET status = 'closing', final_status = ?, reason = ?, stopped_time = ? WHERE id = ?`,
			leaseStatus(e.FinalStatus), e.Reason, unix(e.EndedAt), e.LeaseId)
	case *auctiontypes.EventLeasePaid:
		err = w.leasePaid(e)
	case *auctiontypes.EventLeaseEnded:
		err = w.leaseEnded(e)

	case *offertypes.EventOfferCreated:
		err = w.offerWritten(&e.Offer)
	case *offertypes.EventOfferUpdated:
		err = w.offerWritten(&e.Offer)
	case *offertypes.EventOfferClosed:
		err = w.exec(`UPDATE offers SET status = 'closed', closed_height = ?, updated_height = ? WHERE id = ?`, w.height, w.height, e.OfferId)
	case *offertypes.EventOfferRemoved:
		err = w.exec(`UPDATE offers SET removed_height = ? WHERE id = ?`, w.height, e.OfferId)

	case *settlementtypes.EventProofAccepted:
		err = w.proofAccepted(e, proofs)
	case *settlementtypes.EventEpochMissed:
		err = w.epoch(e.LeaseId, e.Epoch, e.Provider, "missed", "", e.MissedInRow)
	case *settlementtypes.EventEpochExcused:
		err = w.epoch(e.LeaseId, e.Epoch, e.Provider, "excused", e.Reason, 0)
	case *settlementtypes.EventRewardsClaimed:
		err = w.rewardsClaimed(e)
	case *settlementtypes.EventFraudProven:
		err = w.fraudProven(e)
	case *settlementtypes.EventAuditOpened:
		err = w.auditOpened(e)
	case *settlementtypes.EventAuditAnswered:
		err = w.exec(`UPDATE audits SET status = 'answered', answered_height = ? WHERE id = ?`, w.height, e.AuditId)
	case *settlementtypes.EventAuditResolved:
		err = w.auditResolved(e)

	case *providertypes.EventReputationChanged:
		err = w.reputationChanged(e)
	case *providertypes.EventSlashed:
		err = w.slashed(e)
	case *providertypes.EventJailed:
		err = w.exec(`INSERT INTO slashes (height, idx, time, provider, kind, jailed_until) VALUES (?, ?, ?, ?, 'jailed', ?)`,
			w.height, w.idx, w.time, e.Provider, unix(e.JailedUntil))
	case *providertypes.EventTombstoned:
		err = w.exec(`INSERT INTO slashes (height, idx, time, provider, kind) VALUES (?, ?, ?, ?, 'tombstoned')`,
			w.height, w.idx, w.time, e.Provider)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", proto.MessageName(ev), err)
	}
	return nil
}

func (w *writer) jobPosted(e *auctiontypes.EventJobPosted) error {
	j := &e.Job
	a, err := amounts(j.Spec.MaxPrice, j.Deposit)
	if err != nil {
		return err
	}
	return w.exec(`INSERT INTO jobs (id, renter, models, regions, tier, preemptible, gpu_count, duration_seconds, image,
		denom, max_price, deposit, status, created_height, created_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.Id, j.Renter, strings.Join(j.Spec.Models, ","), strings.Join(j.Spec.Regions, ","),
		short(j.Spec.Tier.String(), "TIER_"), j.Spec.Preemptible, j.Spec.GpuCount, j.Spec.DurationSeconds, j.Spec.Image,
		j.Spec.MaxPrice.Denom, a[0], a[1], jobStatus(auctiontypes.JOB_STATUS_OPEN), w.height, w.time)
}

// jobCleared records the clearing, the leases it made (with the model and
// region of their offers) and one clearings row per model.
func (w *writer) jobCleared(e *auctiontypes.EventJobCleared) error {
	price, err := amount(e.ClearingPrice)
	if err != nil {
		return err
	}
	if err := w.exec(`UPDATE jobs SET status = ?, clearing_price = ?, lease_ids = ?, candidates = ?, cleared_height = ?, cleared_time = ?
		WHERE id = ?`, jobStatus(auctiontypes.JOB_STATUS_MATCHED), price, joinIDs(e.LeaseIds), e.Candidates, w.height, w.time, e.JobId); err != nil {
		return err
	}
	gpusOf := map[string]int{}
	for i := range e.Leases {
		l := &e.Leases[i]
		var model, region string
		switch err := w.queryRow(`SELECT model, region FROM offers WHERE id = ?`, l.OfferId).Scan(&model, &region); err {
		case nil, sql.ErrNoRows: // an offer from genesis is unknown: no model
		default:
			return err
		}
		a, err := amounts(l.Price, l.Escrow, l.Paid)
		if err != nil {
			return err
		}
		if err := w.exec(`INSERT INTO leases (id, job_id, renter, provider, offer_id, model, region, gpus, gpu_uuids, tier,
			duration_seconds, denom, price, escrow, paid, status, created_height, created_time)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			l.Id, l.JobId, l.Renter, l.Provider, l.OfferId, model, region, len(l.GpuUuids), strings.Join(l.GpuUuids, ","),
			short(l.Tier.String(), "TIER_"), l.DurationSeconds, l.Price.Denom, a[0], a[1], a[2], leaseStatus(l.Status),
			w.height, w.time); err != nil {
			return err
		}
		gpusOf[model] += len(l.GpuUuids)
	}
	models := make([]string, 0, len(gpusOf))
	for m := range gpusOf {
		models = append(models, m)
	}
	sort.Strings(models)
	var duration uint64
	if len(e.Leases) > 0 {
		duration = e.Leases[0].DurationSeconds
	}
	for _, m := range models {
		if err := w.exec(`INSERT INTO clearings (job_id, model, height, time, denom, price, gpus, duration_seconds)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.JobId, m, w.height, w.time, e.ClearingPrice.Denom, price, gpusOf[m], duration); err != nil {
			return err
		}
		if err := w.exec(`INSERT INTO models (model, clearings, first_height, last_height, last_denom, last_price)
			VALUES (?, 1, ?, ?, ?, ?)
			ON CONFLICT (model) DO UPDATE SET clearings = models.clearings + 1, last_height = excluded.last_height,
				last_denom = excluded.last_denom, last_price = excluded.last_price`,
			m, w.height, w.height, e.ClearingPrice.Denom, price); err != nil {
			return err
		}
	}
	return nil
}

// jobCancelled applies the chain's rule: CANCELLED unless a worse outcome
// is already known.
func (w *writer) jobCancelled(e *auctiontypes.EventJobCancelled) error {
	var cur string
	switch err := w.queryRow(`SELECT status FROM jobs WHERE id = ?`, e.JobId).Scan(&cur); err {
	case nil:
	case sql.ErrNoRows:
		return nil
	default:
		return err
	}
	next := jobStatus(auctiontypes.CancelledStatus(parseJobStatus(cur)))
	return w.exec(`UPDATE jobs SET status = ?, ended_height = CASE WHEN ended_height = 0 THEN ? ELSE ended_height END,
		ended_time = CASE WHEN ended_time = 0 THEN ? ELSE ended_time END WHERE id = ?`, next, w.height, w.time, e.JobId)
}

func (w *writer) signedJobRelayed(e *auctiontypes.EventSignedJobRelayed) error {
	fee, err := amount(e.RelayerFee)
	if err != nil {
		return err
	}
	return w.exec(`UPDATE jobs SET submitter = ?, relayer_fee = ?, relayer_fee_denom = ? WHERE id = ?`,
		e.Submitter, fee, e.RelayerFee.Denom, e.JobId)
}

func (w *writer) escrowRefunded(e *auctiontypes.EventEscrowRefunded) error {
	a, err := amount(e.Amount)
	if err != nil {
		return err
	}
	if e.LeaseId != 0 {
		if err := w.exec(`UPDATE leases SET refunded = refunded + ? WHERE id = ?`, a, e.LeaseId); err != nil {
			return err
		}
	}
	return w.exec(`UPDATE jobs SET refunded = refunded + ? WHERE id = ?`, a, e.JobId)
}

func (w *writer) leasePaid(e *auctiontypes.EventLeasePaid) error {
	paid, err := amount(e.Paid)
	if err != nil {
		return err
	}
	return w.exec(`UPDATE leases SET paid = ? WHERE id = ?`, paid, e.LeaseId)
}

// leaseEnded ends the lease and, with the chain's job status after it,
// ends the job once that status is final.
func (w *writer) leaseEnded(e *auctiontypes.EventLeaseEnded) error {
	paid, err := amount(e.Paid)
	if err != nil {
		return err
	}
	if err := w.exec(`UPDATE leases SET status = ?, final_status = '', reason = ?, paid = ?, ended = 1, ended_height = ?, ended_time = ?
		WHERE id = ?`, leaseStatus(e.Status), e.Reason, paid, w.height, w.time, e.LeaseId); err != nil {
		return err
	}
	if e.JobStatus == auctiontypes.JOB_STATUS_UNSPECIFIED {
		return nil
	}
	var open int
	if err := w.queryRow(`SELECT COUNT(*) FROM leases WHERE job_id = ? AND ended = 0`, e.JobId).Scan(&open); err != nil {
		return err
	}
	if open > 0 {
		return w.exec(`UPDATE jobs SET status = ? WHERE id = ?`, jobStatus(e.JobStatus), e.JobId)
	}
	return w.exec(`UPDATE jobs SET status = ?, ended_height = ?, ended_time = ? WHERE id = ?`, jobStatus(e.JobStatus), w.height, w.time, e.JobId)
}

func (w *writer) offerWritten(o *offertypes.Offer) error {
	var denom string
	prices := [2]int64{}
	for i, c := range []*sdk.Coin{o.Terms.PriceOnDemand, o.Terms.PricePreemptible} {
		if c == nil {
			continue
		}
		a, err := amount(*c)
		if err != nil {
			return err
		}
		prices[i], denom = a, c.Denom
	}
	return w.exec(`INSERT INTO offers (id, provider, model, region, memory_mib, gpu_count, denom, price_on_demand, price_preemptible,
		lanes, status, created_height, updated_height) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET model = excluded.model, region = excluded.region, memory_mib = excluded.memory_mib,
			gpu_count = excluded.gpu_count, denom = excluded.denom, price_on_demand = excluded.price_on_demand,
			price_preemptible = excluded.price_preemptible, lanes = excluded.lanes, status = excluded.status,
			updated_height = excluded.updated_height`,
		o.Id, o.Provider, o.Model, o.Region, o.MemoryMib, len(o.GpuUuids), denom, prices[0], prices[1], o.Terms.Lanes,
		short(o.Status.String(), "OFFER_STATUS_"), w.height, w.height)
}

// epoch records a settled epoch (proven ones carry paid, fee and root).
func (w *writer) epoch(lease, epoch uint64, provider, status, reason string, missedInRow uint32) error {
	return w.exec(`INSERT INTO epochs (lease_id, epoch, provider, status, height, time, reason, missed_in_row)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (lease_id, epoch) DO UPDATE SET status = excluded.status, height = excluded.height, time = excluded.time,
			reason = excluded.reason, missed_in_row = excluded.missed_in_row`,
		lease, epoch, provider, status, w.height, w.time, reason, missedInRow)
}

// proofAccepted records a proven epoch, its per-GPU summaries from the
// tx's MsgSubmitProofs, and adds it to the provider's payout of the block.
func (w *writer) proofAccepted(e *settlementtypes.EventProofAccepted, proofs map[epochKey]*settlementtypes.ExecutionProof) error {
	a, err := amounts(e.Paid, e.Fee)
	if err != nil {
		return err
	}
	if err := w.exec(`INSERT INTO epochs (lease_id, epoch, provider, status, height, time, denom, paid, fee, samples_root)
		VALUES (?, ?, ?, 'proven', ?, ?, ?, ?, ?, ?)
		ON CONFLICT (lease_id, epoch) DO UPDATE SET status = 'proven', height = excluded.height, time = excluded.time,
			denom = excluded.denom, paid = excluded.paid, fee = excluded.fee, samples_root = excluded.samples_root`,
		e.LeaseId, e.Epoch, e.Provider, w.height, w.time, e.Paid.Denom, a[0], a[1], hex.EncodeToString(e.SamplesRoot)); err != nil {
		return err
	}
	if p := proofs[epochKey{e.LeaseId, e.Epoch}]; p != nil {
		for _, g := range p.Gpus {
			if err := w.exec(`INSERT INTO epoch_gpus (lease_id, epoch, gpu_uuid, samples, util_avg_bps, util_min_bps,
				mem_used_max_mib, energy_mj, power_avg_mw, temp_max_c, sm_clock_avg_mhz, xid_errors)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (lease_id, epoch, gpu_uuid) DO UPDATE SET samples = excluded.samples,
					util_avg_bps = excluded.util_avg_bps, util_min_bps = excluded.util_min_bps,
					mem_used_max_mib = excluded.mem_used_max_mib, energy_mj = excluded.energy_mj,
					power_avg_mw = excluded.power_avg_mw, temp_max_c = excluded.temp_max_c,
					sm_clock_avg_mhz = excluded.sm_clock_avg_mhz, xid_errors = excluded.xid_errors`,
				e.LeaseId, e.Epoch, g.Uuid, g.Samples, g.UtilAvgBps, g.UtilMinBps, g.MemUsedMaxMib, g.EnergyMj,
				g.PowerAvgMw, g.TempMaxC, g.SmClockAvgMhz, g.XidErrors); err != nil {
				return err
			}
		}
	}
	k := payoutKey{e.Provider, e.Paid.Denom}
	p := w.payouts[k]
	if p == nil {
		p = &payout{}
		w.payouts[k] = p
	}
	p.paid += a[0]
	p.fee += a[1]
	p.epochs++
	return nil
}

// flushPayouts writes the block's payout sums, in key order.
func (w *writer) flushPayouts() error {
	keys := make([]payoutKey, 0, len(w.payouts))
	for k := range w.payouts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].provider != keys[j].provider {
			return keys[i].provider < keys[j].provider
		}
		return keys[i].denom < keys[j].denom
	})
	for _, k := range keys {
		p := w.payouts[k]
		if err := w.exec(`INSERT INTO payouts (provider, height, denom, time, paid, fee, epochs) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			k.provider, w.height, k.denom, w.time, p.paid, p.fee, p.epochs); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) rewardsClaimed(e *settlementtypes.EventRewardsClaimed) error {
	for _, c := range e.Claimed {
		a, err := amount(c)
		if err != nil {
			return err
		}
		if err := w.exec(`INSERT INTO claims (height, idx, denom, time, operator, amount) VALUES (?, ?, ?, ?, ?, ?)`,
			w.height, w.idx, c.Denom, w.time, e.Operator, a); err != nil {
			return err
		}
	}
	return nil
}

// fraudProven records the verdict; the stake it took is the EventSlashed
// that comes with it.
func (w *writer) fraudProven(e *settlementtypes.EventFraudProven) error {
	return w.exec(`INSERT INTO slashes (height, idx, time, provider, kind, reason, beneficiary)
		VALUES (?, ?, ?, ?, 'fraud_proven', ?, ?)`,
		w.height, w.idx, w.time, e.Provider, fmt.Sprintf("lease %d epoch %d: %s", e.LeaseId, e.Epoch, e.Contradiction), e.Reporter)
}

func (w *writer) auditOpened(e *settlementtypes.EventAuditOpened) error {
	fee, err := amount(e.Fee)
	if err != nil {
		return err
	}
	return w.exec(`INSERT INTO audits (id, provider, auditor, gpu_uuid, workload, work_units, deadline, denom, fee, status,
		opened_height, opened_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)`,
		e.AuditId, e.Provider, e.Requester, e.GpuUuid, e.Workload, e.Shape.Shape().Reads(), unix(e.Deadline), e.Fee.Denom, fee, w.height, w.time)
}

func (w *writer) auditResolved(e *settlementtypes.EventAuditResolved) error {
	slashed, err := amount(e.Slashed)
	if err != nil {
		return err
	}
	return w.exec(`UPDATE audits SET status = ?, resolved_height = ?, resolved_time = ?, fee_paid_to = ?, slashed = ?, leases_failed = ?
		WHERE id = ?`, short(e.Status.String(), "AUDIT_STATUS_"), w.height, w.time, e.FeePaidTo, slashed, e.LeasesFailed, e.AuditId)
}

// reputationChanged keeps the provider's reputation after the block: the
// last write of a block wins.
func (w *writer) reputationChanged(e *providertypes.EventReputationChanged) error {
	r := &e.Reputation
	return w.exec(`INSERT INTO reputation (provider, height, time, reliability_bps, proven, missed, leases_completed, leases_failed,
		preemptions, frauds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (provider, height) DO UPDATE SET reliability_bps = excluded.reliability_bps, proven = excluded.proven,
			missed = excluded.missed, leases_completed = excluded.leases_completed, leases_failed = excluded.leases_failed,
			preemptions = excluded.preemptions, frauds = excluded.frauds`,
		e.Provider, w.height, w.time, r.ReliabilityBps, r.ProvenEpochs, r.MissedEpochs, r.LeasesCompleted, r.LeasesFailed,
		r.Preemptions, r.Frauds)
}

func (w *writer) slashed(e *providertypes.EventSlashed) error {
	a, err := amounts(e.Slashed, e.Reward, e.Burned)
	if err != nil {
		return err
	}
	return w.exec(`INSERT INTO slashes (height, idx, time, provider, kind, reason, fraction_bps, denom, slashed, beneficiary, reward, burned)
		VALUES (?, ?, ?, ?, 'slashed', ?, ?, ?, ?, ?, ?, ?)`,
		w.height, w.idx, w.time, e.Provider, short(e.Reason.String(), "SLASH_REASON_"), e.FractionBps, e.Slashed.Denom,
		a[0], e.Beneficiary, a[1], a[2])
}
