package keeper_test

import (
	"fmt"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

const (
	h100 = "NVIDIA H100 80GB HBM3"
	l40s = "NVIDIA L40S"

	// certHash is a valid certificate pin for https endpoints.
	certHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	// stakePerGPU is x/provider's default min_stake_per_gpu amount.
	stakePerGPU = 100_000_000
)

// gpuUUID is test GPU i's UUID.
func gpuUUID(i int) string { return fmt.Sprintf("GPU-%08x-1111-2222-3333-444455556666", i) }

// operator returns test account i's bech32 address.
func (s *KeeperTestSuite) operator(i int) string { return s.addr(s.accs[i].Address) }

// provide registers account i as a provider in eu-de-fra1, binds n GPUs of
// model (UUIDs from first) and bonds stake for bondFor GPUs. It returns the UUIDs.
func (s *KeeperTestSuite) provide(i int, model string, memory uint64, first, n, bondFor int) []string {
	s.T().Helper()
	if _, err := s.app.ProviderKeeper.Provider(s.ctx, s.accs[i].Address); err != nil {
		_, err := s.providers.RegisterProvider(s.ctx, &providertypes.MsgRegisterProvider{
			Operator: s.operator(i), Moniker: fmt.Sprintf("provider-%d", i), Region: "eu-de-fra1",
			Endpoint: "https://gpu.example.com:8443", TlsCertSha256: certHash,
			Agents: []string{s.operator(4)},
		})
		s.Require().NoError(err)
	}
	infos := make([]providertypes.GPUInfo, n)
	uuids := make([]string, n)
	for j := range infos {
		infos[j] = providertypes.GPUInfo{
			Uuid: gpuUUID(first + j), Model: model, MemoryMib: memory,
			PciBusId: fmt.Sprintf("00000000:%02X:00.0", (first+j)%256), DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01",
		}
		uuids[j] = infos[j].Uuid
	}
	_, err := s.providers.RegisterGPUs(s.ctx, &providertypes.MsgRegisterGPUs{Signer: s.operator(i), Provider: s.operator(i), Gpus: infos})
	s.Require().NoError(err)
	if bondFor > 0 {
		_, err = s.providers.Bond(s.ctx, &providertypes.MsgBond{Operator: s.operator(i), Amount: ugpu(int64(bondFor) * stakePerGPU)})
		s.Require().NoError(err)
	}
	return uuids
}

// terms are valid terms selling on-demand at onDemand uusdc and preemptible
// at half that, any workload, no windows (always available).
func terms(onDemand int64) types.OfferTerms {
	return types.OfferTerms{
		PriceOnDemand:    usdc(onDemand),
		PricePreemptible: usdc(onDemand / 2),
		Lanes:            types.AllLanes,
		Workloads:        types.AllWorkloads,
	}
}

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

func ugpu(n int64) sdk.Coin  { return sdk.NewInt64Coin(app.BondDenom, n) }
func usdc(n int64) *sdk.Coin { c := sdk.NewInt64Coin(app.USDCDenom, n); return &c }

func window(from, to time.Time) types.Window { return types.Window{Start: from, End: to} }

func abciEvent(e sdk.Event) abci.Event { return abci.Event(e) }

// marketParams are the params SetupTest installs: the defaults with uusdc
// accepted next to ugpu.
func marketParams() types.Params {
	p := types.DefaultParams()
	p.PaymentDenoms = []string{app.BondDenom, app.USDCDenom}
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
