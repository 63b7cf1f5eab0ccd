package apptesting

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/stretchr/testify/require"

	"cosmossdk.io/core/address"
	sdkmath "cosmossdk.io/math"

	addresscodec "github.com/cosmos/cosmos-sdk/codec/address"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"

	"github.com/idlegpu/idlegpu/app"
	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offerkeeper "github.com/idlegpu/idlegpu/x/offer/keeper"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// The market suites' shared test inventory and job: one GPU model, one
// endpoint and one container image, so every suite builds the same state.
const (
	// H100 is the test GPUs' model, with H100MemoryMib of memory.
	H100          = "NVIDIA H100 80GB HBM3"
	H100MemoryMib = 81559
	// Endpoint and CertHash are a valid https endpoint and its certificate pin.
	Endpoint = "https://gpu.example.com:8443"
	CertHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	// Image, ImageDigest and ManifestHash are a valid container for jobs.
	Image        = "ghcr.io/acme/train:1.4"
	ImageDigest  = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	ManifestHash = "a3f1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
)

// StartBalance is what a test account holds of each denom it is funded in:
// 1,000,000 of the unit.
var StartBalance = sdkmath.NewInt(1_000_000_000_000)

// MarketFunds are StartBalance of both market denoms: the bond denom for
// stake and fees, uusdc for payments.
func MarketFunds() sdk.Coins {
	return sdk.NewCoins(sdk.NewCoin(chaincfg.BondDenom, StartBalance), sdk.NewCoin(chaincfg.USDCDenom, StartBalance))
}

// MarketChain is a test chain for a keeper suite: funded accounts, the app at
// height 1 and the context of the next block, where the suite runs its
// keepers and message servers directly.
type MarketChain struct {
	App  *app.App
	Ctx  sdk.Context
	Accs []Account
	// AddrCodec renders addresses with the chain's prefix.
	AddrCodec address.Codec
	// Authority is x/gov's address, every module's params authority.
	Authority string
}

// NewMarketChain sets up a chain with n accounts funded with coins; its
// context is block 2's, BlockInterval after block 1.
func NewMarketChain(tb testing.TB, n int, coins sdk.Coins) MarketChain {
	tb.Helper()
	accs := NewAccounts(n, coins)
	a := Setup(tb, accs)
	ctx := a.NewNextBlockContext(cmtproto.Header{
		ChainID: ChainID,
		Height:  a.LastBlockHeight() + 1,
		Time:    GenesisTime.Add(BlockInterval * 2),
	})
	codec := addresscodec.NewBech32Codec(chaincfg.Bech32Prefix)
	authority, err := codec.BytesToString(authtypes.NewModuleAddress(govtypes.ModuleName))
	require.NoError(tb, err)
	return MarketChain{App: a, Ctx: ctx, Accs: accs, AddrCodec: codec, Authority: authority}
}

// GPUUUID is test GPU n's UUID.
func GPUUUID(n int) string { return fmt.Sprintf("GPU-%08x-1111-2222-3333-444455556666", n) }

// GPU is test GPU n's inventory: a UUID and a PCI bus of its own per n.
func GPU(n int, model string, memoryMib uint64) providertypes.GPUInfo {
	return providertypes.GPUInfo{
		Uuid:          GPUUUID(n),
		Model:         model,
		MemoryMib:     memoryMib,
		PciBusId:      fmt.Sprintf("00000000:%02X:00.0", n%256),
		DriverVersion: "550.54.15",
		VbiosVersion:  "96.00.89.00.01",
	}
}

// GPUs are n test GPUs numbered from first.
func GPUs(first, n int, model string, memoryMib uint64) []providertypes.GPUInfo {
	out := make([]providertypes.GPUInfo, n)
	for i := range out {
		out[i] = GPU(first+i, model, memoryMib)
	}
	return out
}

// UUIDs are the GPUs' UUIDs, in order.
func UUIDs(gpus []providertypes.GPUInfo) []string {
	out := make([]string, len(gpus))
	for i, g := range gpus {
		out[i] = g.Uuid
	}
	return out
}

// USDC is n uusdc.
func USDC(n int64) sdk.Coin { return sdk.NewInt64Coin(chaincfg.USDCDenom, n) }

// Terms sell on demand at onDemand uusdc per GPU-hour and preemptible at
// half that, every lane and workload, with no windows (always available).
func Terms(onDemand int64) offertypes.OfferTerms {
	p, pre := USDC(onDemand), USDC(onDemand/2)
	return offertypes.OfferTerms{
		PriceOnDemand:    &p,
		PricePreemptible: &pre,
		Lanes:            offertypes.AllLanes,
		Workloads:        offertypes.AllWorkloads,
	}
}

// TrainingJob is a SILVER training job of Image for gpus H100s at most
// maxPrice uusdc per GPU-hour; callers set its duration, memory and bid
// window as their test needs.
func TrainingJob(gpus uint32, maxPrice int64) auctiontypes.JobSpec {
	return auctiontypes.JobSpec{
		Image: Image, ImageDigest: ImageDigest, ManifestHash: ManifestHash,
		Workload: offertypes.WORKLOAD_TRAINING, GpuCount: gpus, Models: []string{H100},
		Tier: auctiontypes.TIER_SILVER, MaxPrice: USDC(maxPrice),
	}
}

// Market sends the market modules' messages through their message servers
// at Ctx, as providers and renters would, and fails TB on any error. Make
// one per use: suites change their context and their test's T as they go.
type Market struct {
	TB  testing.TB
	App *app.App
	Ctx sdk.Context
}

// RegisterProvider registers operator at Endpoint in region.
func (m Market) RegisterProvider(operator, moniker, region string, agents ...string) {
	m.TB.Helper()
	_, err := providerkeeper.NewMsgServerImpl(m.App.ProviderKeeper).RegisterProvider(m.Ctx, &providertypes.MsgRegisterProvider{
		Operator: operator, Moniker: moniker, Region: region,
		Endpoint: Endpoint, TlsCertSha256: CertHash, Agents: agents,
	})
	require.NoError(m.TB, err)
}

// RegisterGPUs binds gpus to operator's provider and returns their UUIDs.
// The GPUs get an audit pass as GPUs registered before the memwalk upgrade
// do (x/settlement GrantPass), so market tests can offer them at once;
// audit tests register with RegisterUnverifiedGPUs.
func (m Market) RegisterGPUs(operator string, gpus []providertypes.GPUInfo) []string {
	m.TB.Helper()
	uuids := m.RegisterUnverifiedGPUs(operator, gpus)
	until := m.Ctx.BlockTime().Add(100 * 365 * 24 * time.Hour)
	for _, u := range uuids {
		require.NoError(m.TB, m.App.SettlementKeeper.GrantPass(m.Ctx, u, until))
	}
	return uuids
}

// RegisterUnverifiedGPUs binds gpus with no audit pass: they may not enter
// an offer before passing their required audit.
func (m Market) RegisterUnverifiedGPUs(operator string, gpus []providertypes.GPUInfo) []string {
	m.TB.Helper()
	_, err := providerkeeper.NewMsgServerImpl(m.App.ProviderKeeper).RegisterGPUs(m.Ctx, &providertypes.MsgRegisterGPUs{
		Signer: operator, Provider: operator, Gpus: gpus,
	})
	require.NoError(m.TB, err)
	return UUIDs(gpus)
}

// Bond bonds amount of the bond denom for operator.
func (m Market) Bond(operator string, amount sdkmath.Int) {
	m.TB.Helper()
	_, err := providerkeeper.NewMsgServerImpl(m.App.ProviderKeeper).Bond(m.Ctx, &providertypes.MsgBond{
		Operator: operator, Amount: sdk.NewCoin(chaincfg.BondDenom, amount),
	})
	require.NoError(m.TB, err)
}

// RequiredStake is the stake n GPUs need under the current params.
func (m Market) RequiredStake(n uint32) sdkmath.Int {
	m.TB.Helper()
	p, err := m.App.ProviderKeeper.Params.Get(m.Ctx)
	require.NoError(m.TB, err)
	return p.RequiredStake(n)
}

// SetReliability gives the provider a track record of bps, without the
// proofs that would earn it.
func (m Market) SetReliability(operator string, bps uint32) {
	m.TB.Helper()
	addr, err := m.App.AccountKeeper.AddressCodec().StringToBytes(operator)
	require.NoError(m.TB, err)
	rep, err := m.App.ProviderKeeper.Reputations.Get(m.Ctx, addr)
	require.NoError(m.TB, err)
	rep.ReliabilityBps = bps
	require.NoError(m.TB, m.App.ProviderKeeper.Reputations.Set(m.Ctx, addr, rep))
}

// CreateOffer offers operator's GPUs on terms and returns the offer id.
func (m Market) CreateOffer(operator string, uuids []string, terms offertypes.OfferTerms) uint64 {
	m.TB.Helper()
	res, err := offerkeeper.NewMsgServerImpl(m.App.OfferKeeper).CreateOffer(m.Ctx, &offertypes.MsgCreateOffer{
		Signer: operator, Provider: operator, GpuUuids: uuids, Terms: terms,
	})
	require.NoError(m.TB, err)
	return res.OfferId
}

// Provider is a provider Provide sets up in one go.
type Provider struct {
	Moniker, Region string
	Agents          []string
	GPUs            []providertypes.GPUInfo
	// Stake is bonded once the GPUs are registered.
	Stake sdkmath.Int
	// ReliabilityBps is its track record before it offers.
	ReliabilityBps uint32
	// OnDemand prices the offer of every GPU: Terms(OnDemand).
	OnDemand int64
}

// Provide registers operator as p, binds its GPUs, bonds its stake, sets its
// reliability and offers every GPU; it returns the offer id.
func (m Market) Provide(operator string, p Provider) uint64 {
	m.TB.Helper()
	m.RegisterProvider(operator, p.Moniker, p.Region, p.Agents...)
	uuids := m.RegisterGPUs(operator, p.GPUs)
	m.Bond(operator, p.Stake)
	m.SetReliability(operator, p.ReliabilityBps)
	return m.CreateOffer(operator, uuids, Terms(p.OnDemand))
}

// PostJob posts spec for renter and returns the job id.
func (m Market) PostJob(renter string, spec auctiontypes.JobSpec) uint64 {
	m.TB.Helper()
	res, err := auctionkeeper.NewMsgServerImpl(m.App.AuctionKeeper).PostJob(m.Ctx, &auctiontypes.MsgPostJob{Renter: renter, Spec: spec})
	require.NoError(m.TB, err)
	return res.JobId
}

// PassesInGenesis gives provider's GPUs an audit pass in the genesis, as a
// network whose genesis lists already-verified GPUs does, so tests that
// register them by tx can offer them at once.
func PassesInGenesis(tb testing.TB, a *app.App, gen map[string]json.RawMessage, provider string, uuids ...string) {
	tb.Helper()
	var gs settlementtypes.GenesisState
	a.AppCodec().MustUnmarshalJSON(gen[settlementtypes.ModuleName], &gs)
	until := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, u := range uuids {
		gs.Verifications = append(gs.Verifications, settlementtypes.GPUVerification{GpuUuid: u, VerifiedUntil: until, Provider: provider})
	}
	slices.SortFunc(gs.Verifications, func(x, y settlementtypes.GPUVerification) int { return strings.Compare(x.GpuUuid, y.GpuUuid) })
	gen[settlementtypes.ModuleName] = a.AppCodec().MustMarshalJSON(&gs)
}
