package keeper_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// TestSignedOffersSurviveExportAndImport sends x/offer messages as signed
// transactions through the real ante handler and router, then exports the
// chain, imports it into a fresh app and checks that the offers, the rebuilt
// market index and the fill-rate counters come back exactly.
func TestSignedOffersSurviveExportAndImport(t *testing.T) {
	accs := apptesting.NewAccounts(2, apptesting.MarketFunds())
	a := apptesting.NewApp(t)
	gen := apptesting.Genesis(t, a, apptesting.NewValidator(), accs)
	offerGen := types.DefaultGenesis()
	offerGen.Params = marketParams()
	gen[types.ModuleName] = a.AppCodec().MustMarshalJSON(offerGen)
	infos := apptesting.GPUs(0, 3, h100, 81559)
	uuids := apptesting.UUIDs(infos)
	apptesting.PassesInGenesis(t, a, gen, accs[0].Address.String(), uuids...)
	apptesting.InitChain(t, a, gen)
	apptesting.NextBlock(t, a)

	op := accs[0].Address.String()
	// The provider's setup, then its offers: two transactions, each well
	// inside apptesting.DefaultGas.
	res := apptesting.DeliverTx(t, a, accs[0],
		&providertypes.MsgRegisterProvider{Operator: op, Moniker: "rack", Region: "eu-de", Endpoint: "https://gpu.example.com", TlsCertSha256: apptesting.CertHash},
		&providertypes.MsgRegisterGPUs{Signer: op, Provider: op, Gpus: infos},
		&providertypes.MsgBond{Operator: op, Amount: ugpu(3 * stakePerGPU)},
	)
	require.Zero(t, res.Code, res.Log)
	res = apptesting.DeliverTx(t, a, accs[0],
		&types.MsgCreateOffer{Signer: op, Provider: op, GpuUuids: uuids[:2], Terms: terms(2_000_000)},
		&types.MsgCreateOffer{Signer: op, Provider: op, GpuUuids: uuids[2:], Terms: terms(1_500_000)},
	)
	require.Zero(t, res.Code, res.Log)

	// A bad offer fails with x/offer's codespace and code; the tx's other
	// message (a valid update) is rolled back with it.
	res = apptesting.DeliverTx(t, a, accs[0],
		&types.MsgUpdateOffer{Signer: op, OfferId: 1, Terms: terms(900_000)},
		&types.MsgCreateOffer{Signer: op, Provider: op, GpuUuids: uuids[:1], Terms: terms(2_000_000)},
	)
	require.Equal(t, types.ModuleName, res.Codespace)
	require.Equal(t, types.ErrGPUInOffer.ABCICode(), res.Code)

	// One GPU leased (as x/auction will) and blocks pass, so counters move.
	// Written straight to the committed store, so the next block commits it.
	ctx := a.NewUncachedContext(false, a.GetContextForCheckTx(nil).BlockHeader())
	require.NoError(t, a.OfferKeeper.OccupyForLease(ctx, 2, uuids[2:]))
	for range 3 {
		apptesting.NextBlock(t, a)
	}
	ctx = a.NewContext(true)
	o, err := a.OfferKeeper.Offer(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, "2000000uusdc", o.Terms.PriceOnDemand.String(), "the rolled-back update left the price")
	require.Equal(t, apptesting.GenesisTime.Add(3*apptesting.BlockInterval), o.CreatedAt, "block 3's time (the offers tx)")
	require.NoError(t, a.OfferKeeper.CheckInvariants(ctx))

	exported, err := a.ExportAppStateAndValidators(false, nil, nil)
	require.NoError(t, err)
	var state map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(exported.AppState, &state))
	var og types.GenesisState
	a.AppCodec().MustUnmarshalJSON(state[types.ModuleName], &og)
	require.Len(t, og.Offers, 2)
	require.Equal(t, uint64(3), og.NextOfferId)
	require.Equal(t, []string{uuids[2]}, og.Offers[1].OccupiedGpuUuids)
	require.Len(t, og.ProviderStats, 1)
	require.Equal(t, [3]uint32{2, 3, 1}, [3]uint32{og.ProviderStats[0].Offers, og.ProviderStats[0].OfferedGpus, og.ProviderStats[0].LeasedGpus})

	b := apptesting.NewApp(t)
	apptesting.InitChain(t, b, state)
	apptesting.NextBlock(t, b)
	bctx := b.NewContext(true)
	require.NoError(t, b.OfferKeeper.CheckInvariants(bctx))
	require.NoError(t, b.ProviderKeeper.CheckInvariants(bctx))
	reexported, err := b.OfferKeeper.ExportGenesis(bctx)
	require.NoError(t, err)
	require.JSONEq(t, string(state[types.ModuleName]), string(b.AppCodec().MustMarshalJSON(reexported)))

	// The rebuilt index serves the same walk: offer 2 has no free GPU left.
	var ids []uint64
	_, err = b.OfferKeeper.WalkCandidates(bctx, types.CandidateQuery{
		Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(5_000_000), Workload: types.WORKLOAD_TRAINING, GPUCount: 1, MaxScan: 10,
	}, func(c types.Candidate) (bool, error) { ids = append(ids, c.Offer.Id); return false, nil })
	require.NoError(t, err)
	require.Equal(t, []uint64{1}, ids)
}
