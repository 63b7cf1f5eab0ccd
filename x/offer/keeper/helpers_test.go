package keeper_test

import (
	"fmt"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

const (
	h100 = apptesting.H100
	l40s = "NVIDIA L40S"

	// stakePerGPU is x/provider's default min_stake_per_gpu amount.
	stakePerGPU = 100_000_000
)

// gpuUUID is test GPU i's UUID.
var gpuUUID = apptesting.GPUUUID

// fixture sends this test's messages at the suite's context.
func (s *KeeperTestSuite) fixture() apptesting.Market {
	return apptesting.Market{TB: s.T(), App: s.app, Ctx: s.ctx}
}

// operator returns test account i's bech32 address.
func (s *KeeperTestSuite) operator(i int) string { return s.addr(s.accs[i].Address) }

// provide registers account i as a provider in eu-de-fra1, binds n GPUs of
// model (UUIDs from first) and bonds stake for bondFor GPUs. It returns the UUIDs.
func (s *KeeperTestSuite) provide(i int, model string, memory uint64, first, n, bondFor int) []string {
	s.T().Helper()
	m := s.fixture()
	if _, err := s.app.ProviderKeeper.Provider(s.ctx, s.accs[i].Address); err != nil {
		m.RegisterProvider(s.operator(i), fmt.Sprintf("provider-%d", i), "eu-de-fra1", s.operator(4))
	}
	uuids := m.RegisterGPUs(s.operator(i), apptesting.GPUs(first, n, model, memory))
	if bondFor > 0 {
		m.Bond(s.operator(i), sdkmath.NewInt(int64(bondFor)*stakePerGPU))
	}
	return uuids
}

// terms are valid terms selling on-demand at onDemand uusdc and preemptible
// at half that, any workload, no windows (always available).
var terms = apptesting.Terms

// create offers uuids for provider i and returns the offer id.
func (s *KeeperTestSuite) create(i int, uuids []string, t types.OfferTerms) uint64 {
	s.T().Helper()
	res, err := s.msgServer.CreateOffer(s.ctx, &types.MsgCreateOffer{Signer: s.operator(i), Provider: s.operator(i), GpuUuids: uuids, Terms: t})
	s.Require().NoError(err)
	return res.OfferId
}

func (s *KeeperTestSuite) offer(id uint64) types.Offer {
	s.T().Helper()
	o, err := s.keeper.Offer(s.ctx, id)
	s.Require().NoError(err)
	return o
}

func (s *KeeperTestSuite) providerState(i int) providertypes.Provider {
	s.T().Helper()
	p, err := s.app.ProviderKeeper.Provider(s.ctx, s.accs[i].Address)
	s.Require().NoError(err)
	return p
}

func (s *KeeperTestSuite) setParams(update func(*types.Params)) {
	s.T().Helper()
	p, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	update(&p)
	s.Require().NoError(s.keeper.Params.Set(s.ctx, p))
}

// indexKeys lists the market index (or the any-model index).
func (s *KeeperTestSuite) indexKeys(anyModel bool) []string {
	s.T().Helper()
	set := s.keeper.MarketIndex
	if anyModel {
		set = s.keeper.AnyModelIndex
	}
	var out []string
	s.Require().NoError(set.Walk(s.ctx, nil, func(k types.IndexKey) (bool, error) {
		out = append(out, types.IndexKeyCodec.Stringify(k))
		return false, nil
	}))
	return out
}

// snapshot is both modules' whole state: what a rejected message must leave untouched.
type snapshot struct {
	offers    *types.GenesisState
	providers *providertypes.GenesisState
}

func (s *KeeperTestSuite) snapshot() snapshot {
	s.T().Helper()
	o, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	p, err := s.app.ProviderKeeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	return snapshot{o, p}
}

func ugpu(n int64) sdk.Coin  { return sdk.NewInt64Coin(chaincfg.BondDenom, n) }
func usdc(n int64) *sdk.Coin { c := sdk.NewInt64Coin(chaincfg.USDCDenom, n); return &c }

func window(from, to time.Time) types.Window { return types.Window{Start: from, End: to} }

func abciEvent(e sdk.Event) abci.Event { return abci.Event(e) }

// marketParams are the params SetupTest installs: the defaults with uusdc
// accepted next to ugpu.
func marketParams() types.Params {
	p := types.DefaultParams()
	p.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	return p
}

// requireOffer compares an offer with what the store holds.
func (s *KeeperTestSuite) requireOffer(want types.Offer, id uint64) {
	s.T().Helper()
	s.requireSameOffer(want, s.offer(id))
}

// requireSameOffer compares offers in the codec's JSON, so an empty list
// equals a nil one as on the wire (the store reads lists back non-nil).
func (s *KeeperTestSuite) requireSameOffer(want, got types.Offer) {
	s.T().Helper()
	s.Require().JSONEq(string(s.app.AppCodec().MustMarshalJSON(&want)), string(s.app.AppCodec().MustMarshalJSON(&got)))
}
