package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrNotFound is returned for a job or lease the index does not hold.
var ErrNotFound = errors.New("index: not found")

const (
	// defaultLimit is the page size when none is asked.
	defaultLimit = 50
	// maxLimit bounds a page.
	maxLimit = 1000
)

// page normalises limit and offset.
func page(limit, offset int) (int, int) {
	if limit <= 0 {
		limit = defaultLimit
	}
	return min(limit, maxLimit), max(offset, 0)
}

// fromUnix is a stored time; 0 is the zero time.
func fromUnix(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func splitIDs(s string) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	out := make([]uint64, len(parts))
	for i, p := range parts {
		id, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("lease id %q: %w", p, err)
		}
		out[i] = id
	}
	return out, nil
}

// queryRows runs a query and scans each row with scan.
func queryRows[T any](ctx context.Context, db *conn, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Blocks returns indexed blocks, newest first.
func (d *DB) Blocks(ctx context.Context, limit, offset int) ([]Block, error) {
	limit, offset = page(limit, offset)
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Block, error) {
		var b Block
		var t int64
		err := r.Scan(&b.Height, &t, &b.Proposer, &b.Txs, &b.Events)
		b.Time = fromUnix(t)
		return b, err
	}, `SELECT height, time, proposer, txs, events FROM blocks ORDER BY height DESC LIMIT ? OFFSET ?`, limit, offset)
}

const jobColumns = `id, renter, models, regions, tier, preemptible, gpu_count, duration_seconds, image, denom, max_price, deposit,
	status, created_height, created_time, clearing_price, lease_ids, candidates, cleared_height, cleared_time, ended_height,
	ended_time, refunded, submitter, relayer_fee, relayer_fee_denom`

// storable: ids are stored as SQL integers (int64). An id above that was
// never indexed (the chain counts from 1), so asking for one finds nothing
// rather than failing in the driver.
func storable(id uint64) bool { return id <= math.MaxInt64 }

type scanner interface{ Scan(dest ...any) error }

func scanJob(r scanner) (Job, error) {
	var j Job
	var models, regions, leaseIDs string
	var created, cleared, ended int64
	if err := r.Scan(&j.ID, &j.Renter, &models, &regions, &j.Tier, &j.Preemptible, &j.GPUCount, &j.DurationSeconds, &j.Image,
		&j.Denom, &j.MaxPrice, &j.Deposit, &j.Status, &j.CreatedHeight, &created, &j.ClearingPrice, &leaseIDs, &j.Candidates,
		&j.ClearedHeight, &cleared, &j.EndedHeight, &ended, &j.Refunded, &j.Submitter, &j.RelayerFee, &j.RelayerFeeDenom); err != nil {
		return Job{}, err
	}
	j.Models, j.Regions = splitList(models), splitList(regions)
	j.CreatedAt, j.ClearedAt, j.EndedAt = fromUnix(created), fromUnix(cleared), fromUnix(ended)
	var err error
	j.LeaseIDs, err = splitIDs(leaseIDs)
	return j, err
}

// Job returns one job, ErrNotFound if the index has none with id.
func (d *DB) Job(ctx context.Context, id uint64) (Job, error) {
	if !storable(id) {
		return Job{}, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	j, err := scanJob(d.sql.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	return j, err
}

// JobsOfRenter returns a renter's jobs, newest first.
func (d *DB) JobsOfRenter(ctx context.Context, renter string, limit, offset int) ([]Job, error) {
	limit, offset = page(limit, offset)
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Job, error) { return scanJob(r) },
		`SELECT `+jobColumns+` FROM jobs WHERE renter = ? ORDER BY id DESC LIMIT ? OFFSET ?`, renter, limit, offset)
}

const leaseColumns = `id, job_id, renter, provider, offer_id, model, region, gpus, gpu_uuids, tier, duration_seconds, denom,
	price, escrow, paid, refunded, status, final_status, reason, ended, created_height, created_time, started_height,
	started_time, stopped_time, ended_height, ended_time`

func scanLease(r scanner) (Lease, error) {
	var l Lease
	var uuids string
	var created, started, stopped, ended int64
	if err := r.Scan(&l.ID, &l.JobID, &l.Renter, &l.Provider, &l.OfferID, &l.Model, &l.Region, &l.GPUs, &uuids, &l.Tier,
		&l.DurationSeconds, &l.Denom, &l.Price, &l.Escrow, &l.Paid, &l.Refunded, &l.Status, &l.FinalStatus, &l.Reason,
		&l.Ended, &l.CreatedHeight, &created, &l.StartedHeight, &started, &stopped, &l.EndedHeight, &ended); err != nil {
		return Lease{}, err
	}
	l.GPUUUIDs = splitList(uuids)
	l.CreatedAt, l.StartedAt, l.StoppedAt, l.EndedAt = fromUnix(created), fromUnix(started), fromUnix(stopped), fromUnix(ended)
	return l, nil
}

// Lease returns one lease, ErrNotFound if the index has none with id.
func (d *DB) Lease(ctx context.Context, id uint64) (Lease, error) {
	if !storable(id) {
		return Lease{}, fmt.Errorf("lease %d: %w", id, ErrNotFound)
	}
	l, err := scanLease(d.sql.QueryRowContext(ctx, `SELECT `+leaseColumns+` FROM leases WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, fmt.Errorf("lease %d: %w", id, ErrNotFound)
	}
	return l, err
}

// Leases returns the leases f selects, newest first.
func (d *DB) Leases(ctx context.Context, f LeaseFilter) ([]Lease, error) {
	limit, offset := page(f.Limit, f.Offset)
	where, args := leaseWhere(f)
	q := `SELECT ` + leaseColumns + ` FROM leases` + where + ` ORDER BY id DESC LIMIT ? OFFSET ?`
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Lease, error) { return scanLease(r) }, q, append(args, limit, offset)...)
}

// CountLeases is how many leases f selects, ignoring its page (Before,
// Limit, Offset): the total a paged list shows.
func (d *DB) CountLeases(ctx context.Context, f LeaseFilter) (int64, error) {
	f.Before = 0
	where, args := leaseWhere(f)
	var n int64
	err := d.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM leases`+where, args...).Scan(&n)
	return n, err
}

// leaseWhere is f's WHERE clause (with its leading space) and arguments.
func leaseWhere(f LeaseFilter) (string, []any) {
	var where []string
	var args []any
	if f.Renter != "" {
		where, args = append(where, "renter = ?"), append(args, f.Renter)
	}
	if f.Provider != "" {
		where, args = append(where, "provider = ?"), append(args, f.Provider)
	}
	if f.Ended != nil {
		where, args = append(where, "ended = ?"), append(args, *f.Ended)
	}
	if f.Before != 0 {
		where, args = append(where, "id < ?"), append(args, min(f.Before, math.MaxInt64))
	}
	if len(where) == 0 {
		return "", nil
	}
	return ` WHERE ` + strings.Join(where, " AND "), args
}

// LeasesOfJob returns a job's leases in id order.
func (d *DB) LeasesOfJob(ctx context.Context, jobID uint64) ([]Lease, error) {
	if !storable(jobID) {
		return nil, nil
	}
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Lease, error) { return scanLease(r) },
		`SELECT `+leaseColumns+` FROM leases WHERE job_id = ? ORDER BY id`, jobID)
}

// Epochs returns a lease's settled epochs in order, each with the per-GPU
// summaries of its proof.
func (d *DB) Epochs(ctx context.Context, leaseID uint64, limit, offset int) ([]Epoch, error) {
	if !storable(leaseID) {
		return nil, nil
	}
	limit, offset = page(limit, offset)
	eps, err := queryRows(ctx, d.sql, func(r *sql.Rows) (Epoch, error) {
		var e Epoch
		var t int64
		err := r.Scan(&e.LeaseID, &e.Epoch, &e.Provider, &e.Status, &e.Height, &t, &e.Denom, &e.Paid, &e.Fee, &e.SamplesRoot,
			&e.Reason, &e.MissedInRow)
		e.Time = fromUnix(t)
		return e, err
	}, `SELECT lease_id, epoch, provider, status, height, time, denom, paid, fee, samples_root, reason, missed_in_row
		FROM epochs WHERE lease_id = ? ORDER BY epoch LIMIT ? OFFSET ?`, leaseID, limit, offset)
	if err != nil || len(eps) == 0 {
		return eps, err
	}
	type gpuRow struct {
		epoch uint64
		g     EpochGPU
	}
	gpus, err := queryRows(ctx, d.sql, func(r *sql.Rows) (gpuRow, error) {
		var x gpuRow
		g := &x.g
		err := r.Scan(&x.epoch, &g.UUID, &g.Samples, &g.UtilAvgBps, &g.UtilMinBps, &g.MemUsedMaxMiB, &g.EnergyMJ, &g.PowerAvgMW,
			&g.TempMaxC, &g.SMClockAvgMHz, &g.XIDErrors)
		return x, err
	}, `SELECT epoch, gpu_uuid, samples, util_avg_bps, util_min_bps, mem_used_max_mib, energy_mj, power_avg_mw, temp_max_c,
		sm_clock_avg_mhz, xid_errors FROM epoch_gpus WHERE lease_id = ? AND epoch BETWEEN ? AND ? ORDER BY epoch, gpu_uuid`,
		leaseID, eps[0].Epoch, eps[len(eps)-1].Epoch)
	if err != nil {
		return nil, err
	}
	at := make(map[uint64]int, len(eps))
	for i, e := range eps {
		at[e.Epoch] = i
	}
	for _, x := range gpus {
		if i, ok := at[x.epoch]; ok {
			eps[i].GPUs = append(eps[i].GPUs, x.g)
		}
	}
	return eps, nil
}

func scanClearing(r scanner) (Clearing, error) {
	var c Clearing
	var t int64
	err := r.Scan(&c.JobID, &c.Model, &c.Height, &t, &c.Denom, &c.Price, &c.GPUs, &c.DurationSeconds)
	c.Time = fromUnix(t)
	return c, err
}

// PriceHistory returns a model's clearings since a time, oldest first.
func (d *DB) PriceHistory(ctx context.Context, model string, since time.Time, limit, offset int) ([]Clearing, error) {
	limit, offset = page(limit, offset)
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Clearing, error) { return scanClearing(r) },
		`SELECT job_id, model, height, time, denom, price, gpus, duration_seconds FROM clearings
		WHERE model = ? AND time >= ? ORDER BY time, job_id LIMIT ? OFFSET ?`, model, since.Unix(), limit, offset)
}

// Models returns the models that have cleared, by name.
func (d *DB) Models(ctx context.Context) ([]Model, error) {
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Model, error) {
		var m Model
		err := r.Scan(&m.Model, &m.Clearings, &m.FirstHeight, &m.LastHeight, &m.LastDenom, &m.LastPrice)
		return m, err
	}, `SELECT model, clearings, first_height, last_height, last_denom, last_price FROM models ORDER BY model`)
}

// Reliability returns a provider's reputation history, newest first.
func (d *DB) Reliability(ctx context.Context, provider string, limit, offset int) ([]Reputation, error) {
	limit, offset = page(limit, offset)
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Reputation, error) {
		var x Reputation
		var t int64
		err := r.Scan(&x.Provider, &x.Height, &t, &x.ReliabilityBps, &x.Proven, &x.Missed, &x.LeasesCompleted, &x.LeasesFailed,
			&x.Preemptions, &x.Frauds)
		x.Time = fromUnix(t)
		return x, err
	}, `SELECT provider, height, time, reliability_bps, proven, missed, leases_completed, leases_failed, preemptions, frauds
		FROM reputation WHERE provider = ? ORDER BY height DESC LIMIT ? OFFSET ?`, provider, limit, offset)
}

// Earnings sums what a provider's proofs paid since a time in buckets of
// the given width (aligned on the unix epoch), oldest first.
func (d *DB) Earnings(ctx context.Context, provider string, bucket time.Duration, since time.Time) ([]Earning, error) {
	width := int64(bucket / time.Second)
	if width <= 0 {
		return nil, fmt.Errorf("earnings bucket %s is under a second", bucket)
	}
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Earning, error) {
		var e Earning
		var start int64
		err := r.Scan(&start, &e.Denom, &e.Paid, &e.Fee, &e.Epochs)
		e.Start, e.Net = time.Unix(start, 0).UTC(), e.Paid-e.Fee
		return e, err
	}, `SELECT (time / ?1) * ?1 AS bucket, denom, SUM(paid), SUM(fee), SUM(epochs) FROM payouts
		WHERE provider = ?2 AND time >= ?3 GROUP BY bucket, denom ORDER BY bucket, denom`, width, provider, since.Unix())
}

// Slashes returns a provider's slashes, jailings, tombstoning and proven
// frauds, newest first.
func (d *DB) Slashes(ctx context.Context, provider string, limit, offset int) ([]Slash, error) {
	limit, offset = page(limit, offset)
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Slash, error) {
		var s Slash
		var t, jailed int64
		err := r.Scan(&s.Height, &t, &s.Provider, &s.Kind, &s.Reason, &s.FractionBps, &s.Denom, &s.Slashed, &s.Beneficiary,
			&s.Reward, &s.Burned, &jailed)
		s.Time, s.JailedUntil = fromUnix(t), fromUnix(jailed)
		return s, err
	}, `SELECT height, time, provider, kind, reason, fraction_bps, denom, slashed, beneficiary, reward, burned, jailed_until
		FROM slashes WHERE provider = ? ORDER BY height DESC, idx DESC LIMIT ? OFFSET ?`, provider, limit, offset)
}

// Audits returns the audits of a provider's GPUs, newest first.
func (d *DB) Audits(ctx context.Context, provider string, limit, offset int) ([]Audit, error) {
	limit, offset = page(limit, offset)
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Audit, error) {
		var a Audit
		var deadline, opened, resolved int64
		err := r.Scan(&a.ID, &a.Provider, &a.Auditor, &a.GPUUUID, &a.Workload, &a.WorkUnits, &deadline, &a.Denom, &a.Fee,
			&a.Status, &a.OpenedHeight, &opened, &a.AnsweredHeight, &a.ResolvedHeight, &resolved, &a.FeePaidTo, &a.Slashed,
			&a.LeasesFailed)
		a.Deadline, a.OpenedAt, a.ResolvedAt = fromUnix(deadline), fromUnix(opened), fromUnix(resolved)
		return a, err
	}, `SELECT id, provider, auditor, gpu_uuid, workload, work_units, deadline, denom, fee, status, opened_height, opened_time,
		answered_height, resolved_height, resolved_time, fee_paid_to, slashed, leases_failed
		FROM audits WHERE provider = ? ORDER BY id DESC LIMIT ? OFFSET ?`, provider, limit, offset)
}

// Claims returns the rewards an operator claimed, newest first.
func (d *DB) Claims(ctx context.Context, operator string, limit, offset int) ([]Claim, error) {
	limit, offset = page(limit, offset)
	return queryRows(ctx, d.sql, func(r *sql.Rows) (Claim, error) {
		var c Claim
		var t int64
		err := r.Scan(&c.Height, &t, &c.Operator, &c.Denom, &c.Amount)
		c.Time = fromUnix(t)
		return c, err
	}, `SELECT height, time, operator, denom, amount FROM claims WHERE operator = ?
		ORDER BY height DESC, idx DESC, denom LIMIT ? OFFSET ?`, operator, limit, offset)
}

// MarketStats sums the clearings since a time: jobs cleared, GPU-seconds
// sold, and per model and denom the median clearing price.
func (d *DB) MarketStats(ctx context.Context, since time.Time) (MarketStats, error) {
	cs, err := queryRows(ctx, d.sql, func(r *sql.Rows) (Clearing, error) { return scanClearing(r) },
		`SELECT job_id, model, height, time, denom, price, gpus, duration_seconds FROM clearings WHERE time >= ?`, since.Unix())
	if err != nil {
		return MarketStats{}, err
	}
	st := MarketStats{Since: since}
	jobs := map[uint64]bool{}
	type key struct{ model, denom string }
	prices := map[key][]int64{}
	byKey := map[key]*ModelStats{}
	for _, c := range cs {
		jobs[c.JobID] = true
		gs := int64(c.GPUs) * int64(c.DurationSeconds)
		st.GPUSeconds += gs
		k := key{c.Model, c.Denom}
		m := byKey[k]
		if m == nil {
			m = &ModelStats{Model: c.Model, Denom: c.Denom}
			byKey[k] = m
		}
		m.Clearings++
		m.GPUSeconds += gs
		prices[k] = append(prices[k], c.Price)
	}
	st.ClearedJobs = int64(len(jobs))
	for k, m := range byKey {
		m.MedianPrice = median(prices[k])
		st.Models = append(st.Models, *m)
	}
	sort.Slice(st.Models, func(i, j int) bool {
		if st.Models[i].Model != st.Models[j].Model {
			return st.Models[i].Model < st.Models[j].Model
		}
		return st.Models[i].Denom < st.Models[j].Denom
	})
	return st, nil
}

// median is the middle price (the mean of the two middle ones, rounded
// down, for an even count).
func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return xs[n/2-1] + (xs[n/2]-xs[n/2-1])/2
}

// ProviderRecords returns every provider's latest indexed reliability and
// its audits' outcomes, by operator: what a renter choosing among asks
// weighs besides the price.
func (d *DB) ProviderRecords(ctx context.Context) (map[string]ProviderRecord, error) {
	out := map[string]ProviderRecord{}
	rows, err := queryRows(ctx, d.sql, func(r *sql.Rows) (ProviderRecord, error) {
		var p ProviderRecord
		err := r.Scan(&p.Provider, &p.ReliabilityBps, &p.Proven)
		return p, err
	}, `SELECT r.provider, r.reliability_bps, r.proven FROM reputation r
		JOIN (SELECT provider, MAX(height) AS height FROM reputation GROUP BY provider) latest
		ON r.provider = latest.provider AND r.height = latest.height`)
	if err != nil {
		return nil, err
	}
	for _, p := range rows {
		p.HasReputation = true
		out[p.Provider] = p
	}
	audits, err := queryRows(ctx, d.sql, func(r *sql.Rows) (ProviderRecord, error) {
		var p ProviderRecord
		err := r.Scan(&p.Provider, &p.AuditsPassed, &p.AuditsFailed)
		return p, err
	}, `SELECT provider,
		SUM(CASE WHEN status = 'correct' THEN 1 ELSE 0 END),
		SUM(CASE WHEN status IN ('wrong', 'missed', 'bad_reveal') THEN 1 ELSE 0 END)
		FROM audits GROUP BY provider`)
	if err != nil {
		return nil, err
	}
	for _, a := range audits {
		p := out[a.Provider]
		p.Provider, p.AuditsPassed, p.AuditsFailed = a.Provider, a.AuditsPassed, a.AuditsFailed
		out[a.Provider] = p
	}
	return out, nil
}
