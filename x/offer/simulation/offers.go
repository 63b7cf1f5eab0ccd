package simulation

import (
	"context"
	"time"

	"cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/keeper"
	"github.com/idlegpu/idlegpu/x/offer/types"
	providersim "github.com/idlegpu/idlegpu/x/provider/simulation"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// MsgCreateOfferFactory offers some of an ACTIVE provider's free GPUs of
// one model, within what its stake covers.
func MsgCreateOfferFactory(k keeper.Keeper, pk types.ProviderKeeper) simsx.SimMsgFactoryFn[*types.MsgCreateOffer] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgCreateOffer) {
		r := testData.Rand()
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip("no params")
			return nil, nil
		}
		// Few accounts are providers with free, stake-covered GPUs: look at
		// every account rather than a couple of random ones.
		type fit struct {
			addr string
			free []string
		}
		var fits []fit
		for _, a := range testData.AllAccounts() {
			if free := freeGPUs(ctx, k, pk, a.Address); len(free) > 0 {
				fits = append(fits, fit{a.Address.String(), free})
			}
		}
		if len(fits) == 0 {
			reporter.Skip("no provider with free, stake-covered GPUs")
			return nil, nil
		}
		pick := fits[r.Intn(len(fits))]
		free := pick.free
		operator := testData.GetAccount(reporter, pick.addr)
		if reporter.IsSkipped() {
			return nil, nil
		}
		st, _, err := k.FillRate(ctx, operator.Address)
		if err != nil || st.Offers >= params.MaxOffersPerProvider {
			reporter.Skip("provider at max_offers_per_provider")
			return nil, nil
		}
		n := r.Intn(min(len(free), int(params.MaxGpusPerOffer))) + 1
		return []simsx.SimAccount{operator}, &types.MsgCreateOffer{
			Signer: operator.AddressBech32, Provider: operator.AddressBech32, GpuUuids: free[:n],
			Terms: randomTerms(r, params, sdk.UnwrapSDKContext(ctx).BlockTime()),
		}
	}
}

// MsgUpdateOfferFactory reprices an open or paused offer and may pause or
// reopen it (reopening only while the provider could commit its GPUs).
func MsgUpdateOfferFactory(k keeper.Keeper, pk types.ProviderKeeper) simsx.SimMsgFactoryFn[*types.MsgUpdateOffer] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgUpdateOffer) {
		r := testData.Rand()
		o, operator := liveOffer(ctx, k, testData, reporter)
		if reporter.IsSkipped() {
			return nil, nil
		}
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		status := types.OFFER_STATUS_PAUSED
		if r.Intn(3) > 0 && pk.CanCommitGPUs(ctx, operator.Address, 0) == nil {
			status = types.OFFER_STATUS_OPEN
		}
		return []simsx.SimAccount{operator}, &types.MsgUpdateOffer{
			Signer: operator.AddressBech32, OfferId: o.Id, Terms: randomTerms(r, params, sdk.UnwrapSDKContext(ctx).BlockTime()), Status: status,
		}
	}
}

// MsgCloseOfferFactory closes an open or paused offer.
func MsgCloseOfferFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgCloseOffer] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgCloseOffer) {
		o, operator := liveOffer(ctx, k, testData, reporter)
		if reporter.IsSkipped() {
			return nil, nil
		}
		return []simsx.SimAccount{operator}, &types.MsgCloseOffer{Signer: operator.AddressBech32, OfferId: o.Id}
	}
}

// freeGPUs returns the provider's uncommitted GPUs of its first free GPU's
// model, as many as its stake can still cover; none unless it is ACTIVE.
func freeGPUs(ctx context.Context, k keeper.Keeper, pk types.ProviderKeeper, addr sdk.AccAddress) []string {
	p, err := pk.Provider(ctx, addr)
	if err != nil || p.Status != providertypes.PROVIDER_STATUS_ACTIVE {
		return nil
	}
	gpus, err := pk.GPUs(ctx, addr)
	if err != nil {
		return nil
	}
	var out []string
	var model string
	for _, g := range gpus {
		if g.Committed || (model != "" && g.Model != model) {
			continue
		}
		if pk.CanCommitGPUs(ctx, addr, uint32(len(out)+1)) != nil {
			break
		}
		if has, _ := k.GPUOffers.Has(ctx, g.Uuid); has {
			continue
		}
		if held, err := k.GPUHeld(ctx, g.Uuid); err != nil || held {
			continue // no audit pass yet (x/settlement)
		}
		model = g.Model
		out = append(out, g.Uuid)
	}
	return out
}

// liveOffer picks a random OPEN or PAUSED offer whose provider is a sim account.
func liveOffer(ctx context.Context, k keeper.Keeper, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) (types.Offer, simsx.SimAccount) {
	var live []types.Offer
	if err := k.Offers.Walk(ctx, nil, func(_ uint64, o types.Offer) (bool, error) {
		if o.Live() && testData.HasAccount(o.Provider) {
			live = append(live, o)
		}
		return false, nil
	}); err != nil || len(live) == 0 {
		reporter.Skip("no open or paused offer")
		return types.Offer{}, simsx.SimAccount{}
	}
	o := live[testData.Rand().Intn(len(live))]
	return o, testData.GetAccount(reporter, o.Provider)
}

// randomTerms draws valid terms: a random non-empty lane set priced in an
// accepted denom, any workloads, sometimes a window from now, a max duration,
// internet egress and an ingress.
func randomTerms(r *simsx.XRand, params types.Params, now time.Time) types.OfferTerms {
	denom := params.PaymentDenoms[r.Intn(len(params.PaymentDenoms))]
	price := func() *sdk.Coin { c := sdk.NewCoin(denom, math.NewInt(r.Int63n(10_000_000)+1)); return &c }
	t := types.OfferTerms{Lanes: uint32(r.Intn(int(types.AllLanes))) + 1, Workloads: uint32(r.Intn(int(types.AllWorkloads))) + 1}
	if t.Lanes&uint32(types.LANE_ON_DEMAND|types.LANE_RESERVED) != 0 {
		t.PriceOnDemand = price()
	}
	if t.Lanes&uint32(types.LANE_PREEMPTIBLE) != 0 {
		t.PricePreemptible = price()
	}
	if r.Intn(2) == 0 {
		t.Windows = []types.Window{{Start: now, End: now.Add(time.Duration(r.Intn(30*24)+1) * time.Hour)}}
	}
	if r.Intn(2) == 0 {
		t.MaxDurationSeconds = uint64(r.Intn(7*24*3600) + 1)
	}
	if r.Intn(4) == 0 {
		t.ImageAllowlist = []string{"sha256:" + providersim.RandomHex(r, 4)}
	}
	if r.Intn(2) == 0 { // half the offers give jobs internet egress
		t.EgressMbpsPerGpu = uint32(r.Intn(types.MaxEgressMbpsPerGPU)) + 1
	}
	if r.Intn(3) == 0 { // a third serve inbound traffic, some under a pinned certificate
		t.IngressDomain = "gpu" + providersim.RandomHex(r, 2) + ".example.com"
		if r.Intn(2) == 0 {
			t.IngressTlsCertSha256 = providersim.RandomHex(r, 32)
		}
	}
	return t
}
