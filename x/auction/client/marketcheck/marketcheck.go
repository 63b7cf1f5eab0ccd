// Package marketcheck judges, before a renter signs, whether the market
// can serve a job now: the CLI's post-job and sign-job and the web app's
// post page use it, with the rule clearing applies (types.Serves).
package marketcheck

import (
	"context"
	"fmt"
	"strings"

	gogogrpc "github.com/cosmos/gogoproto/grpc"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// Limit is how many of the cheapest fitting offers the check
// reads (x/offer's largest Candidates answer).
const Limit = 100

// Check refuses, before the deposit goes into escrow, a job that no
// standing offer can serve now: none fits its shape and price, or none of
// the fitting offers' providers may serve its tier (types.Serves, the rule
// clearing applies). Such a job would only expire after its bid window,
// with nothing to say why: a new provider starts below SILVER's floor, so
// on a young market a SILVER job finds offers and no match.
func Check(ctx context.Context, conn gogogrpc.ClientConn, spec types.JobSpec, params types.Params) error {
	offers, err := Offers(ctx, conn, Request(spec))
	if err != nil {
		return err
	}
	reliability, err := Reliability(ctx, conn, offers)
	if err != nil {
		return err
	}
	return Verdict(spec, params, offers, len(offers) < Limit, reliability)
}

// Request is x/offer's Candidates request for a job's shape: every filter
// clearing applies to standing offers, the Limit cheapest.
func Request(spec types.JobSpec) *offertypes.QueryCandidatesRequest {
	return &offertypes.QueryCandidatesRequest{
		Lane: spec.Tier.Lane(), Models: spec.Models, MaxPrice: spec.MaxPrice, MinMemoryMib: spec.MinMemoryMib,
		Regions: spec.Regions, Workload: spec.Workload, ImageDigest: spec.ImageDigest, Image: spec.Image,
		GpuCount: spec.GpuCount, AllowSplit: spec.AllowSplit, DurationSeconds: spec.DurationSeconds,
		MinCpuCoresPerGpu: spec.MinCpuCoresPerGpu, MinHostMemoryMibPerGpu: spec.MinHostMemoryMibPerGpu,
		MinDiskGibPerGpu: spec.MinDiskGibPerGpu, MinEgressMbpsPerGpu: spec.MinEgressMbpsPerGpu,
		IngressPort: spec.IngressPort,
		Limit:       Limit,
	}
}

// Offers are the standing offers req selects, cheapest first.
func Offers(ctx context.Context, conn gogogrpc.ClientConn, req *offertypes.QueryCandidatesRequest) ([]offertypes.CandidateInfo, error) {
	res, err := offertypes.NewQueryClient(conn).Candidates(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("reading the market's offers: %w", err)
	}
	return res.Candidates, nil
}

// Reliability is each offer's provider's reliability as clearing reads it:
// its reputation's reliability when ACTIVE, 0 (serves nothing) otherwise.
func Reliability(ctx context.Context, conn gogogrpc.ClientConn, offers []offertypes.CandidateInfo) (map[string]uint32, error) {
	reliability := map[string]uint32{}
	providers := providertypes.NewQueryClient(conn)
	for _, c := range offers {
		if _, ok := reliability[c.Provider]; ok {
			continue
		}
		p, err := providers.Provider(ctx, &providertypes.QueryProviderRequest{Operator: c.Provider})
		if err != nil {
			return nil, fmt.Errorf("reading provider %s: %w", c.Provider, err)
		}
		reliability[c.Provider] = 0 // not ACTIVE: serves nothing
		if p.Provider.Status == providertypes.PROVIDER_STATUS_ACTIVE {
			reliability[c.Provider] = p.Reputation.ReliabilityBps
		}
	}
	return reliability, nil
}

// Verdict judges the fitting offers: nil when enough GPUs of
// providers that may serve the job's tier are offered. complete says the
// offers are all that fit; when they are not, a later, dearer offer may
// still serve, so the verdict is never a refusal.
func Verdict(spec types.JobSpec, params types.Params, offers []offertypes.CandidateInfo, complete bool, reliability map[string]uint32) error {
	var free, eligibleFree uint32
	best := uint32(0)
	for _, c := range offers {
		n := uint32(len(c.FreeGpuUuids))
		if !spec.AllowSplit {
			n = min(n, spec.GpuCount) // one offer serves the whole job
		}
		free += n
		r := reliability[c.Provider]
		best = max(best, r)
		if types.Serves(params, spec.Tier, r) {
			eligibleFree += n
		}
	}
	if !complete || eligibleFree >= spec.GpuCount {
		return nil
	}
	tier := strings.ToLower(strings.TrimPrefix(spec.Tier.String(), "TIER_"))
	switch {
	case len(offers) == 0:
		return fmt.Errorf("no standing offer fits this job now (%s lane, at most %s a GPU-hour, its model, memory, region, image and resources): it would expire unfilled after its bid window (see the market with `idlegpud q offer search`)",
			strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(spec.Tier.Lane().String(), "LANE_")), "_", "-"), spec.MaxPrice)
	case free < spec.GpuCount:
		return fmt.Errorf("the offers that fit this job have %d free GPU(s) together, it needs %d: it would expire unfilled (post fewer GPUs)", free, spec.GpuCount)
	case best == 0:
		return fmt.Errorf("%d offer(s) fit this job, but none of their providers is ACTIVE now: it would expire unfilled", len(offers))
	case eligibleFree == 0:
		return fmt.Errorf("%d offer(s) fit this job, but no provider of them may serve %s now: %s needs %s reliability and the best of them has %s (a new provider starts at x/provider's initial_reliability_bps and rises with proven epochs): post it as bronze (preemptible, any reliability)",
			len(offers), tier, tier, units.Bps(params.MinReliability(spec.Tier)), units.Bps(best))
	default:
		return fmt.Errorf("the offers that fit this job from providers that may serve %s have %d free GPU(s) together, it needs %d: it would expire unfilled (post fewer GPUs)", tier, eligibleFree, spec.GpuCount)
	}
}
