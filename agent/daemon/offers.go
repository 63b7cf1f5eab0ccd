package daemon

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/policy"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// publishOffers keeps one offer per GPU model of this machine on chain:
// the registered GPUs of that model, priced by the policy (the dynamic
// price follows how many of them are leased), available in the calendar's
// windows, PAUSED while the operator paused them, the machine cannot run
// jobs, or a GPU is over a limit (pauseReason). Only what differs is sent.
// A GPU enters an offer only with a valid audit pass (offerable).
func (d *Daemon) publishOffers(ctx context.Context, now time.Time) error {
	prov, found, err := d.q.Provider(ctx, d.provider)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("provider %s is not registered", d.provider)
	}
	registered, err := d.q.ProviderGPUs(ctx, d.provider)
	if err != nil {
		return err
	}
	offers, err := d.q.ProviderOffers(ctx, d.provider)
	if err != nil {
		return err
	}
	inOffer := map[string]offertypes.Offer{}
	for _, o := range offers {
		if o.Status == offertypes.OFFER_STATUS_CLOSED {
			continue
		}
		for _, g := range o.GpuUuids {
			inOffer[g] = o
		}
	}
	byModel := map[string][]string{}
	for _, g := range registered {
		if _, here := d.devices[g.Uuid]; here {
			byModel[g.Model] = append(byModel[g.Model], g.Uuid)
		}
	}
	status := offertypes.OFFER_STATUS_OPEN
	if d.pauseReason() != "" {
		status = offertypes.OFFER_STATUS_PAUSED
	}
	var msgs []sdk.Msg
	for _, model := range slices.Sorted(maps.Keys(byModel)) {
		gpus := byModel[model]
		terms, ok := d.terms(model, now, leasedShare(gpus, inOffer))
		if !ok {
			continue // no price for this model in the policy: not offered
		}
		var fresh []string
		updated := map[uint64]bool{}
		for _, g := range gpus {
			o, ok := inOffer[g]
			if !ok {
				fresh = append(fresh, g)
				continue
			}
			if updated[o.Id] {
				continue
			}
			updated[o.Id] = true
			if sameTerms(o.Terms, terms, now) && o.Status == status {
				continue
			}
			msgs = append(msgs, &offertypes.MsgUpdateOffer{Signer: d.signer, OfferId: o.Id, Terms: terms, Status: status})
		}
		if len(fresh) > 0 && status == offertypes.OFFER_STATUS_OPEN {
			if fresh, err = d.offerable(ctx, fresh); err != nil {
				return err
			}
			if len(fresh) > 0 {
				msgs = append(msgs, &offertypes.MsgCreateOffer{Signer: d.signer, Provider: d.provider, GpuUuids: fresh, Region: prov.Region, Terms: terms})
			}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	res, err := d.chain.Submit(ctx, msgs...)
	if err != nil {
		return err
	}
	d.log.Info("offers published", "messages", len(msgs), "status", status, "tx", res.TxHash)
	return nil
}

// offerable keeps, of a model's GPUs in no offer, those the chain lets
// into one: a valid audit pass (x/settlement GPUVerification) and no audit
// under way. While one of them is under audit none is offered: GPUs that
// pass their required audits together enter one offer together (an
// offer's GPUs cannot be added to later). A GPU without a pass and no
// audit (its audit missed) does not hold the others back.
func (d *Daemon) offerable(ctx context.Context, uuids []string) ([]string, error) {
	var ok []string
	for _, g := range uuids {
		if d.auditor.Auditing(g) {
			return nil, nil
		}
		v, err := d.q.GPUVerification(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("GPU %s's audit pass: %w", g, err)
		}
		if v.Verified {
			ok = append(ok, g)
		}
	}
	return ok, nil
}

// leasedShare is the part of the GPUs in a lease, in bps: what dynamic
// pricing follows.
func leasedShare(gpus []string, inOffer map[string]offertypes.Offer) uint32 {
	if len(gpus) == 0 {
		return 0
	}
	leased := 0
	for _, g := range gpus {
		if o, ok := inOffer[g]; ok && slices.Contains(o.OccupiedGpuUuids, g) {
			leased++
		}
	}
	return uint32(leased * 10_000 / len(gpus))
}

// terms are the offer terms the policy asks for a model now.
func (d *Daemon) terms(model string, now time.Time, utilBps uint32) (offertypes.OfferTerms, bool) {
	var t offertypes.OfferTerms
	if c, ok := d.prices.Ask(model, policy.OnDemand, utilBps); ok {
		t.PriceOnDemand = &c
		t.Lanes |= uint32(offertypes.LANE_ON_DEMAND) | uint32(offertypes.LANE_RESERVED)
	}
	if c, ok := d.prices.Ask(model, policy.Preemptible, utilBps); ok {
		t.PricePreemptible = &c
		t.Lanes |= uint32(offertypes.LANE_PREEMPTIBLE)
	}
	if t.Lanes == 0 {
		return t, false
	}
	for _, w := range d.cfg.Policy.Workloads {
		switch w {
		case "inference":
			t.Workloads |= uint32(offertypes.WORKLOAD_INFERENCE)
		case "training":
			t.Workloads |= uint32(offertypes.WORKLOAD_TRAINING)
		case "batch":
			t.Workloads |= uint32(offertypes.WORKLOAD_BATCH)
		case "render":
			t.Workloads |= uint32(offertypes.WORKLOAD_RENDER)
		}
	}
	t.MaxDurationSeconds = d.cfg.Policy.MaxLeaseSeconds
	// What the agent will run and give, so clearing matches no job it refuses.
	if len(d.cfg.Policy.ImagePrefixes) > 0 {
		t.ImagePrefixes = slices.Clone(d.cfg.Policy.ImagePrefixes)
	}
	if d.cfg.Runner.Backend == "docker" { // the process runner enforces no limits: it states none
		t.CpuCoresPerGpu = d.cfg.Runner.CPUCoresPerGPU
		t.MemoryMibPerGpu = d.cfg.Runner.MemoryMiBPerGPU
		t.DiskGibPerGpu = d.cfg.Runner.DiskGiBPerGPU
	}
	t.EgressMbpsPerGpu = d.egressPerGPU()
	t.IngressDomain, t.IngressTlsCertSha256 = d.ingressTerms()
	if len(d.cfg.Policy.Availability) > 0 {
		ws := d.calendar.Windows(now, offerHorizon)
		if max := int(d.params.Offer.MaxWindows); max > 0 && len(ws) > max {
			ws = ws[:max]
		}
		for _, w := range ws {
			t.Windows = append(t.Windows, offertypes.Window{Start: w.Start, End: w.End})
		}
	}
	return t, true
}

// sameTerms says whether the published terms still do: equal prices,
// lanes, workloads, limits, image prefixes, resources and egress per GPU, the ingress, and windows that reach at least half the
// horizon ahead (windows are republished then, not every step).
func sameTerms(have, want offertypes.OfferTerms, now time.Time) bool {
	coinEq := func(a, b *sdk.Coin) bool { return (a == nil) == (b == nil) && (a == nil || a.IsEqual(*b)) }
	if !coinEq(have.PricePreemptible, want.PricePreemptible) || !coinEq(have.PriceOnDemand, want.PriceOnDemand) ||
		have.Lanes != want.Lanes || have.Workloads != want.Workloads || have.MaxDurationSeconds != want.MaxDurationSeconds ||
		len(have.ImageAllowlist) != 0 || !slices.Equal(have.ImagePrefixes, want.ImagePrefixes) ||
		have.CpuCoresPerGpu != want.CpuCoresPerGpu || have.MemoryMibPerGpu != want.MemoryMibPerGpu ||
		have.DiskGibPerGpu != want.DiskGibPerGpu || have.EgressMbpsPerGpu != want.EgressMbpsPerGpu ||
		have.IngressDomain != want.IngressDomain || have.IngressTlsCertSha256 != want.IngressTlsCertSha256 {
		return false
	}
	if (len(have.Windows) == 0) != (len(want.Windows) == 0) {
		return false
	}
	if len(have.Windows) == 0 {
		return true
	}
	return have.Windows[len(have.Windows)-1].End.After(now.Add(offerHorizon / 2))
}
