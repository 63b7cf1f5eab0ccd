package keeper_test

import (
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// certHash is a valid certificate pin for https endpoints in tests.
const certHash = apptesting.CertHash

// gpu returns the inventory of test GPU i (distinct UUID and bus per i).
func gpu(i int) types.GPUInfo { return apptesting.GPU(i, apptesting.H100, apptesting.H100MemoryMib) }

func gpus(from, n int) []types.GPUInfo {
	return apptesting.GPUs(from, n, apptesting.H100, apptesting.H100MemoryMib)
}

// fixture sends this test's messages at the suite's context.
func (s *KeeperTestSuite) fixture() apptesting.Market {
	return apptesting.Market{TB: s.T(), App: s.app, Ctx: s.ctx}
}

// operator returns test account i's bech32 address.
func (s *KeeperTestSuite) operator(i int) string { return s.addr(s.accs[i].Address) }

// register registers account i as a provider in eu-de with an https endpoint.
func (s *KeeperTestSuite) register(i int, agents ...string) {
	s.T().Helper()
	s.fixture().RegisterProvider(s.operator(i), fmt.Sprintf("provider-%d", i), "eu-de-fra1", agents...)
}

// bond bonds amount ugpu for provider i.
func (s *KeeperTestSuite) bond(i int, amount int64) {
	s.T().Helper()
	s.fixture().Bond(s.operator(i), sdkmath.NewInt(amount))
}

// registerGPUs binds n test GPUs starting at from to provider i.
func (s *KeeperTestSuite) registerGPUs(i, from, n int) []string {
	s.T().Helper()
	return s.fixture().RegisterGPUs(s.operator(i), gpus(from, n))
}

func (s *KeeperTestSuite) provider(i int) types.Provider {
	s.T().Helper()
	p, err := s.keeper.Provider(s.ctx, s.accs[i].Address)
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

func (s *KeeperTestSuite) balance(addr sdk.AccAddress) sdkmath.Int {
	return s.app.BankKeeper.GetBalance(s.ctx, addr, chaincfg.BondDenom).Amount
}

func (s *KeeperTestSuite) moduleBalance() sdkmath.Int {
	return s.balance(authtypes.NewModuleAddress(types.ModuleName))
}

func (s *KeeperTestSuite) supply() sdkmath.Int {
	return s.app.BankKeeper.GetSupply(s.ctx, chaincfg.BondDenom).Amount
}

// snapshot is the whole module state plus every test account's and the
// module account's balance: what a rejected message must leave untouched.
type snapshot struct {
	state    *types.GenesisState
	balances []sdkmath.Int
	module   sdkmath.Int
	supply   sdkmath.Int
}

func (s *KeeperTestSuite) snapshot() snapshot {
	s.T().Helper()
	state, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	snap := snapshot{state: state, module: s.moduleBalance(), supply: s.supply()}
	for _, a := range s.accs {
		snap.balances = append(snap.balances, s.balance(a.Address))
	}
	return snap
}

func ugpu(n int64) sdk.Coin { return sdk.NewInt64Coin(chaincfg.BondDenom, n) }

func abciEvent(e sdk.Event) abci.Event { return abci.Event(e) }
