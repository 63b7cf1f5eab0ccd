package web

import (
	"encoding/base64"
	"html/template"
	"net/http"
	"time"

	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/indexer"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

type providersData struct {
	Title     string
	Providers []providertypes.Provider
	Next      string
}

// providersPage lists providers a page at a time (?after= the next key).
func (s *Server) providersPage(r *http.Request) (string, any, error) {
	req := &providertypes.QueryProvidersRequest{Pagination: &query.PageRequest{Limit: listLimit}}
	if k := r.URL.Query().Get("after"); k != "" {
		key, err := base64.RawURLEncoding.DecodeString(k)
		if err != nil {
			return "", nil, badRequest("after: not a page key")
		}
		req.Pagination.Key = key
	}
	res, err := providertypes.NewQueryClient(s.conn).Providers(r.Context(), req)
	if err != nil {
		return "", nil, err
	}
	d := providersData{Title: "Providers", Providers: res.Providers}
	if res.Pagination != nil {
		d.Next = base64.RawURLEncoding.EncodeToString(res.Pagination.NextKey)
	}
	return "providers", d, nil
}

type providerData struct {
	Title      string
	P          providertypes.Provider
	Rep        providertypes.Reputation
	GPUs       []providertypes.GPU
	Unbondings []providertypes.UnbondingEntry
	Offers     []offertypes.Offer
	Leases     []auctiontypes.Lease
	Audits     []settlementtypes.Audit
	Rewards    string
	FillBps    uint32
	CanWork    bool
	// From the index.
	ReliabilityChart template.HTML
	EarningsChart    template.HTML
	Earned           string
	Slashes          []indexer.Slash
	Claims           []indexer.Claim
	Ended            []indexer.Lease
	// Each paged list's page.
	GPUsPage, OffersPage, LeasesPage, AuditsPage, EndedPage Page
}

// earningsWindow is how far back the earnings chart reaches.
const earningsWindow = 90 * 24 * time.Hour

// providerPage: one provider's stake, GPUs, offers, leases, audits and
// unclaimed rewards (current state), and its history from the index.
func (s *Server) providerPage(r *http.Request) (string, any, error) {
	addr, err := parseAccount(r.PathValue("addr"))
	if err != nil {
		return "", nil, err
	}
	ctx := r.Context()
	pq := providertypes.NewQueryClient(s.conn)
	p, err := pq.Provider(ctx, &providertypes.QueryProviderRequest{Operator: addr})
	if err != nil {
		return "", nil, err
	}
	d := providerData{Title: "Provider " + p.Provider.Moniker, P: p.Provider, Rep: p.Reputation}
	pages := map[string]*query.PageRequest{}
	for _, list := range []string{"gpus", "offers", "leases", "audits"} {
		if pages[list], err = nodePageRequest(r, list); err != nil {
			return "", nil, err
		}
	}
	gpus, err := pq.ProviderGPUs(ctx, &providertypes.QueryProviderGPUsRequest{Provider: addr, Pagination: pages["gpus"]})
	if err != nil {
		return "", nil, err
	}
	d.GPUs, d.GPUsPage = gpus.Gpus, nodePage(r, "gpus", gpus.Pagination, len(gpus.Gpus))
	// Unbondings are few (one per unbond, each ends in the unbonding time).
	ub, err := pq.Unbondings(ctx, &providertypes.QueryUnbondingsRequest{Provider: addr, Pagination: &query.PageRequest{Limit: listLimit}})
	if err != nil {
		return "", nil, err
	}
	d.Unbondings = ub.Unbondings
	oq := offertypes.NewQueryClient(s.conn)
	offers, err := oq.ProviderOffers(ctx, &offertypes.QueryProviderOffersRequest{Provider: addr, Pagination: pages["offers"]})
	if err != nil {
		return "", nil, err
	}
	d.Offers, d.OffersPage = offers.Offers, nodePage(r, "offers", offers.Pagination, len(offers.Offers))
	if fr, err := oq.FillRate(ctx, &offertypes.QueryFillRateRequest{Provider: addr}); err == nil {
		d.FillBps, d.CanWork = fr.FillRateBps, fr.ProviderCanTakeWork
	}
	leases, err := auctiontypes.NewQueryClient(s.conn).ProviderLeases(ctx, &auctiontypes.QueryProviderLeasesRequest{
		Provider: addr, Pagination: pages["leases"],
	})
	if err != nil {
		return "", nil, err
	}
	d.Leases, d.LeasesPage = leases.Leases, nodePage(r, "leases", leases.Pagination, len(leases.Leases))
	sq := settlementtypes.NewQueryClient(s.conn)
	audits, err := sq.Audits(ctx, &settlementtypes.QueryAuditsRequest{Provider: addr, Pagination: pages["audits"]})
	if err != nil {
		return "", nil, err
	}
	d.Audits, d.AuditsPage = audits.Audits, nodePage(r, "audits", audits.Pagination, len(audits.Audits))
	rw, err := sq.Rewards(ctx, &settlementtypes.QueryRewardsRequest{Provider: addr})
	if err != nil {
		return "", nil, err
	}
	d.Rewards = s.units.Coins(rw.Rewards)
	reps, err := s.db.Reliability(ctx, addr, 1000, 0)
	if err != nil {
		return "", nil, err
	}
	d.ReliabilityChart = reliabilityChart(reps)
	earnings, err := s.db.Earnings(ctx, addr, 24*time.Hour, time.Now().Add(-earningsWindow))
	if err != nil {
		return "", nil, err
	}
	var totals map[string]int64
	d.EarningsChart, totals = s.earningsChart(earnings)
	d.Earned = s.earnedText(totals)
	if d.Slashes, err = s.db.Slashes(ctx, addr, listLimit, 0); err != nil {
		return "", nil, err
	}
	if d.Claims, err = s.db.Claims(ctx, addr, listLimit, 0); err != nil {
		return "", nil, err
	}
	if d.Ended, d.EndedPage, err = s.endedLeases(r, "ended", indexer.LeaseFilter{Provider: addr}); err != nil {
		return "", nil, err
	}
	return "provider", d, nil
}
