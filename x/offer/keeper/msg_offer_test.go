package keeper_test

import (
	"fmt"
	"strings"
	"time"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestCreateOffer() {
	uuids := s.provide(0, h100, 81559, 0, 4, 4)
	// Agents may offer for their provider.
	res, err := s.msgServer.CreateOffer(s.ctx, &types.MsgCreateOffer{
		Signer: s.operator(4), Provider: s.operator(0), GpuUuids: uuids[:3], Terms: terms(2_000_000),
	})
	s.Require().NoError(err)
	s.Require().Equal(uint64(1), res.OfferId)

	now := s.ctx.BlockTime()
	s.requireOffer(types.Offer{
		Id: 1, Provider: s.operator(0), GpuUuids: uuids[:3], Model: h100, MemoryMib: 81559,
		Region: "eu-de-fra1", Terms: terms(2_000_000), Status: types.OFFER_STATUS_OPEN,
		CreatedAt: now, UpdatedAt: now,
	}, 1)

	// The GPUs are committed in x/provider; the fourth is not.
	s.Require().Equal(uint32(3), s.providerState(0).CommittedGpus)
	for i, u := range uuids {
		g, err := s.app.ProviderKeeper.GPU(s.ctx, u)
		s.Require().NoError(err)
		s.Require().Equal(i < 3, g.Committed, u)
	}
	// Two keys (every region, and eu) per lane in each index: RESERVED and ON_DEMAND at the
	// on-demand price, PREEMPTIBLE at its own.
	s.Require().Equal([]string{
		`LANE_ON_DEMAND/"NVIDIA H100 80GB HBM3"/""/uusdc/2000000/1`, `LANE_ON_DEMAND/"NVIDIA H100 80GB HBM3"/"eu"/uusdc/2000000/1`,
		`LANE_PREEMPTIBLE/"NVIDIA H100 80GB HBM3"/""/uusdc/1000000/1`, `LANE_PREEMPTIBLE/"NVIDIA H100 80GB HBM3"/"eu"/uusdc/1000000/1`,
		`LANE_RESERVED/"NVIDIA H100 80GB HBM3"/""/uusdc/2000000/1`, `LANE_RESERVED/"NVIDIA H100 80GB HBM3"/"eu"/uusdc/2000000/1`,
	}, s.indexKeys(false))
	s.Require().Equal([]string{
		`LANE_ON_DEMAND/""/""/uusdc/2000000/1`, `LANE_ON_DEMAND/""/"eu"/uusdc/2000000/1`,
		`LANE_PREEMPTIBLE/""/""/uusdc/1000000/1`, `LANE_PREEMPTIBLE/""/"eu"/uusdc/1000000/1`,
		`LANE_RESERVED/""/""/uusdc/2000000/1`, `LANE_RESERVED/""/"eu"/uusdc/2000000/1`,
	}, s.indexKeys(true))

	st, bps, err := s.keeper.FillRate(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Equal(uint32(1), st.Offers)
	s.Require().Equal(uint32(3), st.OfferedGpus)
	s.Require().Zero(bps)

	var created *types.EventOfferCreated
	for _, e := range s.ctx.EventManager().Events() {
		if e.Type == "idlegpu.offer.v1.EventOfferCreated" {
			msg, err := sdk.ParseTypedEvent(abciEvent(e))
			s.Require().NoError(err)
			created = msg.(*types.EventOfferCreated)
		}
	}
	s.Require().NotNil(created)
	s.requireSameOffer(s.offer(1), created.Offer)
}

func (s *KeeperTestSuite) TestCreateOfferRejects() {
	now := apptesting.GenesisTime.Add(apptesting.BlockInterval * 2) // SetupTest's block time
	past := window(now.Add(-2*time.Hour), now.Add(-time.Hour))
	future := func(fromH, toH int) types.Window {
		return window(now.Add(time.Duration(fromH)*time.Hour), now.Add(time.Duration(toH)*time.Hour))
	}
	with := func(edit func(*types.OfferTerms)) types.OfferTerms {
		t := terms(2_000_000)
		edit(&t)
		return t
	}
	neg := sdk.Coin{Denom: chaincfg.USDCDenom, Amount: sdkmath.NewInt(-5)}

	cases := []struct {
		name   string
		setup  func(uuids []string) // runs after provider 0 has 4 H100s and stake for 4
		signer int
		gpus   func(uuids []string) []string
		region string
		terms  types.OfferTerms
		expErr *errorsmod.Error
	}{
		{name: "zero price", terms: with(func(t *types.OfferTerms) { t.PriceOnDemand = usdc(0) }), expErr: types.ErrInvalidPrice},
		{name: "negative price", terms: with(func(t *types.OfferTerms) { t.PricePreemptible = &neg }), expErr: types.ErrInvalidPrice},
		{name: "denom not accepted", terms: with(func(t *types.OfferTerms) { c := sdk.NewInt64Coin("uatom", 5); t.PriceOnDemand = &c }), expErr: types.ErrDenomNotAccepted},
		{name: "price missing for a lane", terms: with(func(t *types.OfferTerms) { t.PricePreemptible = nil }), expErr: types.ErrInvalidPrice},
		{name: "price for a lane not sold", terms: with(func(t *types.OfferTerms) { t.Lanes = uint32(types.LANE_PREEMPTIBLE) }), expErr: types.ErrInvalidPrice},
		{name: "no lane", terms: with(func(t *types.OfferTerms) { t.Lanes = 0 }), expErr: types.ErrInvalidLanes},
		{name: "unknown lane bit", terms: with(func(t *types.OfferTerms) { t.Lanes = types.AllLanes | 8 }), expErr: types.ErrInvalidLanes},
		{name: "no workload", terms: with(func(t *types.OfferTerms) { t.Workloads = 0 }), expErr: types.ErrInvalidWorkloads},
		{name: "unknown workload bit", terms: with(func(t *types.OfferTerms) { t.Workloads = 16 }), expErr: types.ErrInvalidWorkloads},
		{name: "allowlist entry without sha256:", terms: with(func(t *types.OfferTerms) { t.ImageAllowlist = []string{"abcd1234"} }), expErr: types.ErrInvalidImageAllowlist},
		{name: "allowlist entry not hex", terms: with(func(t *types.OfferTerms) { t.ImageAllowlist = []string{"sha256:abcz"} }), expErr: types.ErrInvalidImageAllowlist},
		{name: "allowlist entry upper case", terms: with(func(t *types.OfferTerms) { t.ImageAllowlist = []string{"sha256:ABCD"} }), expErr: types.ErrInvalidImageAllowlist},
		{name: "allowlist entry too short", terms: with(func(t *types.OfferTerms) { t.ImageAllowlist = []string{"sha256:abc"} }), expErr: types.ErrInvalidImageAllowlist},
		{name: "allowlist entry twice", terms: with(func(t *types.OfferTerms) { t.ImageAllowlist = []string{"sha256:abcd", "sha256:abcd"} }), expErr: types.ErrInvalidImageAllowlist},
		{name: "image prefix empty", terms: with(func(t *types.OfferTerms) { t.ImagePrefixes = []string{""} }), expErr: types.ErrInvalidImagePrefixes},
		{name: "image prefix with a space", terms: with(func(t *types.OfferTerms) { t.ImagePrefixes = []string{"ghcr.io/ acme"} }), expErr: types.ErrInvalidImagePrefixes},
		{name: "image prefix too long", terms: with(func(t *types.OfferTerms) {
			t.ImagePrefixes = []string{strings.Repeat("a", types.MaxImagePrefixLength+1)}
		}), expErr: types.ErrInvalidImagePrefixes},
		{name: "image prefix twice", terms: with(func(t *types.OfferTerms) { t.ImagePrefixes = []string{"ghcr.io/acme/", "ghcr.io/acme/"} }), expErr: types.ErrInvalidImagePrefixes},
		{name: "too many image prefixes", terms: with(func(t *types.OfferTerms) {
			for i := 0; i <= types.MaxImagePrefixes; i++ {
				t.ImagePrefixes = append(t.ImagePrefixes, fmt.Sprintf("ghcr.io/acme%d/", i))
			}
		}), expErr: types.ErrInvalidImagePrefixes},
		{name: "cpu cores per GPU over the bound", terms: with(func(t *types.OfferTerms) { t.CpuCoresPerGpu = types.MaxCPUCoresPerGPU + 1 }), expErr: types.ErrInvalidResources},
		{name: "memory per GPU over the bound", terms: with(func(t *types.OfferTerms) { t.MemoryMibPerGpu = types.MaxMemoryMiBPerGPU + 1 }), expErr: types.ErrInvalidResources},
		{name: "disk per GPU over the bound", terms: with(func(t *types.OfferTerms) { t.DiskGibPerGpu = types.MaxDiskGiBPerGPU + 1 }), expErr: types.ErrInvalidResources},
		{name: "egress per GPU over the bound", terms: with(func(t *types.OfferTerms) { t.EgressMbpsPerGpu = types.MaxEgressMbpsPerGPU + 1 }), expErr: types.ErrInvalidResources},
		{name: "window end before start", terms: with(func(t *types.OfferTerms) { t.Windows = []types.Window{future(3, 2)} }), expErr: types.ErrInvalidWindows},
		{name: "window end equals start", terms: with(func(t *types.OfferTerms) { t.Windows = []types.Window{future(2, 2)} }), expErr: types.ErrInvalidWindows},
		{name: "windows unsorted", terms: with(func(t *types.OfferTerms) { t.Windows = []types.Window{future(5, 6), future(1, 2)} }), expErr: types.ErrInvalidWindows},
		{name: "windows overlapping", terms: with(func(t *types.OfferTerms) { t.Windows = []types.Window{future(1, 3), future(2, 4)} }), expErr: types.ErrInvalidWindows},
		{name: "windows adjacent", terms: with(func(t *types.OfferTerms) { t.Windows = []types.Window{future(1, 2), future(2, 4)} }), expErr: types.ErrInvalidWindows},
		{name: "window wholly past", terms: with(func(t *types.OfferTerms) { t.Windows = []types.Window{past, future(1, 2)} }), expErr: types.ErrInvalidWindows},
		{
			name:   "more than max_windows",
			setup:  func([]string) { s.setParams(func(p *types.Params) { p.MaxWindows = 2 }) },
			terms:  with(func(t *types.OfferTerms) { t.Windows = []types.Window{future(1, 2), future(3, 4), future(5, 6)} }),
			expErr: types.ErrInvalidWindows,
		},
		{name: "max duration over 100 years", terms: with(func(t *types.OfferTerms) { t.MaxDurationSeconds = 101 * 365 * 24 * 3600 }), expErr: types.ErrInvalidDuration},
		{name: "no GPUs", gpus: func([]string) []string { return nil }, expErr: types.ErrNoGPUs},
		{name: "GPU twice", gpus: func(u []string) []string { return []string{u[0], u[0]} }, expErr: types.ErrDuplicateGPU},
		{
			name:   "more than max_gpus_per_offer",
			setup:  func([]string) { s.setParams(func(p *types.Params) { p.MaxGpusPerOffer = 3 }) },
			expErr: types.ErrTooManyGPUs,
		},
		{name: "GPU not registered", gpus: func(u []string) []string { return []string{u[0], gpuUUID(99)} }, expErr: types.ErrGPUNotOwned},
		{
			name:   "GPU of another provider",
			setup:  func([]string) { s.provide(1, h100, 81559, 50, 1, 1) },
			gpus:   func(u []string) []string { return []string{u[0], gpuUUID(50)} },
			expErr: types.ErrGPUNotOwned,
		},
		{
			name:   "GPU already in another offer",
			setup:  func(u []string) { s.create(0, u[:1], terms(1_000_000)) },
			gpus:   func(u []string) []string { return u[:2] },
			expErr: types.ErrGPUInOffer,
		},
		{
			name:   "mixed models",
			setup:  func([]string) { s.provide(0, l40s, 46068, 60, 1, 1) },
			gpus:   func(u []string) []string { return []string{u[0], gpuUUID(60)} },
			expErr: types.ErrMixedModels,
		},
		{
			name: "more than max_offers_per_provider",
			setup: func(u []string) {
				s.setParams(func(p *types.Params) { p.MaxOffersPerProvider = 1 })
				s.create(0, u[3:], terms(1_000_000))
			},
			gpus:   func(u []string) []string { return u[:1] },
			expErr: types.ErrTooManyOffers,
		},
		{name: "signer not operator nor agent", signer: 3, expErr: types.ErrUnauthorized},
		{name: "region malformed", region: "europe", expErr: types.ErrInvalidRegion},
		{
			name: "jailed provider",
			setup: func([]string) {
				s.Require().NoError(s.app.ProviderKeeper.Jail(s.ctx, s.accs[0].Address, now.Add(time.Hour)))
			},
			expErr: providertypes.ErrProviderNotActive,
		},
		{
			name:   "tombstoned provider",
			setup:  func([]string) { s.Require().NoError(s.app.ProviderKeeper.Tombstone(s.ctx, s.accs[0].Address)) },
			expErr: providertypes.ErrProviderNotActive,
		},
		{
			name: "stake does not cover the offered GPUs",
			setup: func(u []string) {
				_, err := s.providers.Unbond(s.ctx, &providertypes.MsgUnbond{Operator: s.operator(0), Amount: ugpu(stakePerGPU)})
				s.Require().NoError(err)
			},
			expErr: providertypes.ErrInsufficientStake,
		},
	}
	for _, tc := range cases {
		s.Run(tc.name, func() {
			s.SetupTest()
			uuids := s.provide(0, h100, 81559, 0, 4, 4)
			if tc.setup != nil {
				tc.setup(uuids)
			}
			gpus := uuids
			if tc.gpus != nil {
				gpus = tc.gpus(uuids)
			}
			t := tc.terms
			if t.PriceOnDemand == nil && t.PricePreemptible == nil && t.Lanes == 0 {
				t = terms(2_000_000)
			}
			signer := tc.signer
			before := s.snapshot()
			events := len(s.ctx.EventManager().Events())

			_, err := s.msgServer.CreateOffer(s.ctx, &types.MsgCreateOffer{
				Signer: s.operator(signer), Provider: s.operator(0), GpuUuids: gpus, Region: tc.region, Terms: t,
			})
			s.Require().ErrorIs(err, tc.expErr)
			s.Require().Equal(before, s.snapshot(), "a rejected offer changes nothing")
			s.Require().Len(s.ctx.EventManager().Events(), events, "and emits nothing")
		})
	}
}
