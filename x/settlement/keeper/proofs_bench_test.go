package keeper_test

import (
	"fmt"
	"testing"
	"time"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	dbm "github.com/cosmos/cosmos-db"

	sdkmath "cosmossdk.io/math"

	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offerkeeper "github.com/idlegpu/idlegpu/x/offer/keeper"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	benchLeases  = 100
	benchGPUs    = 8 // per lease
	benchSamples = 5 * time.Second
)

// BenchmarkSubmitProofs measures delivering one MsgSubmitProofs with 100
// proofs of 8 GPUs each (epoch 0 of 100 leases) in the real app over
// goleveldb, state committed: every check (challenge, GPUs, samples,
// plausibility against the registered GPUs), the payment out of escrow,
// the fee, rewards, reputation, the stored proof and the liveness index.
// Each run starts from the same committed state in a fresh cache store.
//
//	go test ./x/settlement/keeper -run '^$' -bench BenchmarkSubmitProofs -benchtime 20x
func BenchmarkSubmitProofs(b *testing.B) {
	a, msg := benchProofs(b)
	ms := keeper.NewMsgServerImpl(a.SettlementKeeper)
	var gas storetypes.Gas
	for b.Loop() {
		b.StopTimer()
		base := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a).Add(time.Second)})
		ctx, _ := base.CacheContext()
		ctx = ctx.WithGasMeter(storetypes.NewInfiniteGasMeter())
		b.StartTimer()
		res, err := ms.SubmitProofs(ctx, msg)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if want := sdk.NewCoins(sdk.NewCoin(chaincfg.USDCDenom, sdkmath.NewInt(benchLeases*benchGPUs*600*1000))); !res.Paid.Equal(want) {
			b.Fatalf("paid %s, want %s", res.Paid, want)
		}
		gas = ctx.GasMeter().GasConsumed()
		b.StartTimer()
	}
	perProof := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / benchLeases
	b.ReportMetric(perProof/1000, "µs/proof")
	b.ReportMetric(1e9/perProof, "proofs/s")
	b.ReportMetric(float64(gas)/benchLeases, "gas/proof")
	b.ReportMetric(float64(msg.Size())/benchLeases, "bytes/proof")
}

// benchProofs builds a chain with one provider of 800 H100s in 100 offers,
// 100 ACTIVE 8-GPU leases whose first epoch has just ended, and the
// message proving those epochs.
func benchProofs(b *testing.B) (*app.App, *types.MsgSubmitProofs) {
	b.Helper()
	accs := apptesting.NewAccounts(2, sdk.NewCoins(sdk.NewCoin(chaincfg.BondDenom, sdkmath.NewInt(1e15)), sdk.NewCoin(chaincfg.USDCDenom, sdkmath.NewInt(1e15))))
	db, err := dbm.NewGoLevelDB("application", b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	// The GPUs start with an audit pass, as on a network whose genesis
	// lists them verified (measuring proofs, not audits).
	uuids := make([]string, benchLeases*benchGPUs)
	for i := range uuids {
		uuids[i] = fmt.Sprintf("GPU-%08x-1111-2222-3333-444455556666", i)
	}
	a := apptesting.NewAppWithDB(b, db)
	gen := apptesting.Genesis(b, a, apptesting.NewValidator(), accs)
	apptesting.PassesInGenesis(b, a, gen, accs[0].Address.String(), uuids...)
	apptesting.InitChain(b, a, gen)
	apptesting.NextBlock(b, a)
	ctx := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a).Add(time.Second)})
	must := func(_ any, err error) {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
	}
	op, renter := accs[0].Address.String(), accs[1].Address.String()
	oparams := offertypes.DefaultParams()
	oparams.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	must(nil, a.OfferKeeper.Params.Set(ctx, oparams))

	providers := providerkeeper.NewMsgServerImpl(a.ProviderKeeper)
	must(providers.RegisterProvider(ctx, &providertypes.MsgRegisterProvider{
		Operator: op, Moniker: "bench", Region: "eu-de", Endpoint: "https://gpu.example.com:8443", TlsCertSha256: certHash,
	}))
	for i := 0; i < len(uuids); i += 64 {
		infos := make([]providertypes.GPUInfo, min(64, len(uuids)-i))
		for j := range infos {
			infos[j] = providertypes.GPUInfo{
				Uuid: uuids[i+j], Model: h100, MemoryMib: 81559, PciBusId: fmt.Sprintf("%08X:%02X:00.0", (i+j)/256, (i+j)%256),
				DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01",
			}
		}
		must(providers.RegisterGPUs(ctx, &providertypes.MsgRegisterGPUs{Signer: op, Provider: op, Gpus: infos}))
	}
	pparams, err := a.ProviderKeeper.Params.Get(ctx)
	must(nil, err)
	must(providers.Bond(ctx, &providertypes.MsgBond{Operator: op, Amount: sdk.NewCoin(chaincfg.BondDenom, pparams.RequiredStake(uint32(len(uuids))))}))
	rep, err := a.ProviderKeeper.Reputations.Get(ctx, accs[0].Address)
	must(nil, err)
	rep.ReliabilityBps = 10_000
	must(nil, a.ProviderKeeper.Reputations.Set(ctx, accs[0].Address, rep))

	// 3.6 USDC per GPU-hour: 1,000 uusdc per GPU-second.
	price := sdk.NewInt64Coin(chaincfg.USDCDenom, 3_600_000)
	offers := offerkeeper.NewMsgServerImpl(a.OfferKeeper)
	auction := auctionkeeper.NewMsgServerImpl(a.AuctionKeeper)
	for l := range benchLeases {
		must(offers.CreateOffer(ctx, &offertypes.MsgCreateOffer{
			Signer: op, Provider: op, GpuUuids: uuids[l*benchGPUs : (l+1)*benchGPUs],
			Terms: offertypes.OfferTerms{PriceOnDemand: &price, Lanes: uint32(offertypes.LANE_ON_DEMAND), Workloads: offertypes.AllWorkloads},
		}))
		must(auction.PostJob(ctx, &auctiontypes.MsgPostJob{Renter: renter, Spec: trainingJob(benchGPUs, 3600, price.Amount.Int64())}))
	}
	must(nil, a.AuctionKeeper.EndBlocker(ctx))
	for id := uint64(1); id <= benchLeases; id++ {
		must(auction.StartLease(ctx, &auctiontypes.MsgStartLease{Signer: op, LeaseId: id}))
	}
	apptesting.NextBlock(b, a) // commits the block context's writes
	lease0, err := a.AuctionKeeper.Lease(ctx, 1)
	must(nil, err)
	sparams, err := a.SettlementKeeper.Params.Get(ctx)
	must(nil, err)
	from, to, _ := types.EpochWindow(lease0.Start, lease0.DurationSeconds, sparams.EpochSeconds, 0)
	// Real blocks across epoch 0, one a minute, each recording its header.
	for t := apptesting.LastBlockTime(a).Add(time.Minute); !t.After(to.Add(time.Minute)); t = t.Add(time.Minute) {
		apptesting.NextBlockAt(b, a, t)
	}
	qctx := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a)})
	var challenge *types.HeaderRecord
	must(nil, a.SettlementKeeper.Headers.Walk(qctx, nil, func(_ int64, h types.HeaderRecord) (bool, error) {
		if !h.Time.Before(from) && !h.Time.After(to) {
			challenge = &h
			return true, nil
		}
		return false, nil
	}))
	if challenge == nil {
		b.Fatal("no header inside epoch 0")
	}
	msg := &types.MsgSubmitProofs{Signer: op, Provider: op}
	for id := uint64(1); id <= benchLeases; id++ {
		l, err := a.AuctionKeeper.Lease(qctx, id)
		must(nil, err)
		var samples []types.Sample
		for _, u := range l.GpuUuids {
			for i, t := 0, from; !t.After(to); i, t = i+1, t.Add(benchSamples) {
				samples = append(samples, types.Sample{
					GpuUuid: u, TimestampMs: t.UnixMilli(), UtilBps: 9700, MemUsedMib: 70_000, EnergyMj: uint64(i) * 2_500_000,
					PowerMw: 500_000, TempC: 66, SmClockMhz: 1980, Procs: 1,
				})
			}
		}
		p, _, err := types.BuildProof(types.ProofInput{
			LeaseID: id, WindowStart: from, WindowEnd: to, ChallengeHeight: challenge.Height, ChallengeHash: challenge.Hash,
			GPUs: l.GpuUuids, Samples: samples, ImageDigest: digest, AgentVersion: "bench",
		})
		must(nil, err)
		msg.Proofs = append(msg.Proofs, p)
	}
	return a, msg
}
