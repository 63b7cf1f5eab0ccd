package auditor

import (
	"context"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	// retryAfterMiss is how long a GPU whose audit ended without a pass by
	// this agent's fault (MISSED, UNPROVEN) waits before its next required
	// audit: a second miss in a row costs the provider the liveness slash
	// and jail, so a fault that lasts is not run into again at once.
	retryAfterMiss = 30 * time.Minute
	// retryAfterRefusal is how long a GPU waits after the chain refused
	// its required audit (the provider not active, a lease the agent did
	// not know of yet).
	retryAfterRefusal = time.Minute
	// askedWait is how long an audit asked for may take to show in the
	// listing before it is asked for again (a lagging node).
	askedWait = time.Minute
)

// requestRequired asks, every RequiredEvery, for the required audit of
// each of this machine's registered GPUs that needs one: in no lease here,
// without a live audit, and without a pass or in its pass's last quarter
// (when the chain lets the provider renew it). Nothing is asked for when
// audits cannot run here: a miss would only cost the provider.
func (a *Auditor) requestRequired(ctx context.Context, auditing map[string]bool) {
	now := a.cfg.Now()
	if a.runner == nil || now.Before(a.nextRequired) {
		return
	}
	a.nextRequired = now.Add(a.cfg.RequiredEvery)
	due, err := a.dueRequired(ctx, now, auditing)
	if err != nil {
		if ctx.Err() == nil {
			a.cfg.Log.Warn("audits: passes unreadable, asking again later", "err", err)
			a.nextRequired = now // next step
		}
		return
	}
	if len(due) > 0 {
		a.ask(ctx, due, now)
	}
}

// dueRequired lists the GPUs whose required audit to ask for now.
func (a *Auditor) dueRequired(ctx context.Context, now time.Time, auditing map[string]bool) ([]string, error) {
	gpus, err := a.cfg.Queries.ProviderGPUs(ctx, a.cfg.Provider)
	if err != nil {
		return nil, err
	}
	var due []string
	for _, g := range gpus {
		u := g.Uuid
		if auditing[u] {
			delete(a.asked, u) // it showed up
			continue
		}
		if !a.local[u] || (a.cfg.Busy != nil && a.cfg.Busy(u)) || now.Before(a.refused[u]) {
			continue
		}
		if at, ok := a.asked[u]; ok && now.Sub(at) < askedWait {
			continue
		}
		a.mu.Lock()
		missed, ok := a.missedAt[u]
		a.mu.Unlock()
		if ok && now.Sub(missed) < retryAfterMiss {
			continue
		}
		v, err := a.cfg.Queries.GPUVerification(ctx, u)
		if err != nil {
			return nil, err
		}
		if v.Verified && now.Before(v.Verification.VerifiedUntil.Add(-a.cfg.Validity/4)) {
			continue
		}
		due = append(due, u)
	}
	return due, nil
}

// ask sends the GPUs' required audits (no fee) in one tx; when the chain
// refuses it, each alone, so one GPU's refusal holds back no other.
func (a *Auditor) ask(ctx context.Context, uuids []string, now time.Time) {
	msgs := make([]sdk.Msg, len(uuids))
	for i, u := range uuids {
		msgs[i] = &settlementtypes.MsgRequestAudit{Requester: a.cfg.Signer, GpuUuid: u}
	}
	_, err := a.cfg.Chain.Submit(ctx, msgs...)
	switch {
	case ctx.Err() != nil:
		return
	case refused(err) && len(uuids) > 1:
		for _, u := range uuids {
			a.ask(ctx, []string{u}, now)
		}
		return
	case refused(err):
		a.refused[uuids[0]] = now.Add(retryAfterRefusal)
		a.cfg.Log.Warn("required audit refused: asking again later", "gpu", uuids[0], "retry_after", retryAfterRefusal, "err", err)
		return
	case err != nil:
		// Not seen in a block yet: it may land; the listing tells.
		a.cfg.Log.Warn("required audit not in a block yet", "gpus", uuids, "err", err)
	default:
		a.cfg.Log.Info("required audit asked for", "gpus", uuids)
	}
	for _, u := range uuids {
		a.asked[u] = now
	}
	a.cfg.Metrics.Audits.WithLabelValues("requested").Add(float64(len(uuids)))
}
