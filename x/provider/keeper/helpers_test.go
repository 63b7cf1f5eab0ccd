package keeper_test

import (
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// certHash is a valid certificate pin for https endpoints in tests.
const certHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// gpu returns the inventory of test GPU i (distinct UUID and bus per i).
func gpu(i int) types.GPUInfo {
	return types.GPUInfo{
		Uuid:          fmt.Sprintf("GPU-%08x-1111-2222-3333-444455556666", i),
		Model:         "NVIDIA H100 80GB HBM3",
		MemoryMib:     81559,
		PciBusId:      fmt.Sprintf("00000000:%02X:00.0", i%256),
		DriverVersion: "550.54.15",
		VbiosVersion:  "96.00.89.00.01",
	}
}

func gpus(from, n int) []types.GPUInfo {
	out := make([]types.GPUInfo, n)
	for i := range out {
		out[i] = gpu(from + i)
	}
	return out
}

// operator returns test account i's bech32 address.
func (s *KeeperTestSuite) operator(i int) string { return s.addr(s.accs[i].Address) }

// register registers account i as a provider in eu-de with an https endpoint.
func (s *KeeperTestSuite) register(i int, agents ...string) {
	s.T().Helper()
	_, err := s.msgServer.RegisterProvider(s.ctx, &types.MsgRegisterProvider{
		Operator:      s.operator(i),
		Moniker:       fmt.Sprintf("provider-%d", i),
		Region:        "eu-de-fra1",
		Endpoint:      "https://gpu.example.com:8443",
		TlsCertSha256: certHash,
		Agents:        agents,
	})
	s.Require().NoError(err)
}

// bond bonds amount ugpu for provider i.
func (s *KeeperTestSuite) bond(i int, amount int64) {
	s.T().Helper()
	_, err := s.msgServer.Bond(s.ctx, &types.MsgBond{Operator: s.operator(i), Amount: ugpu(amount)})
	s.Require().NoError(err)
}

// registerGPUs binds n test GPUs starting at from to provider i.
func (s *KeeperTestSuite) registerGPUs(i, from, n int) []string {
	s.T().Helper()
	infos := gpus(from, n)
	_, err := s.msgServer.RegisterGPUs(s.ctx, &types.MsgRegisterGPUs{Signer: s.operator(i), Provider: s.operator(i), Gpus: infos})
	s.Require().NoError(err)
	uuids := make([]string, n)
	for j, g := range infos {
		uuids[j] = g.Uuid
	}
	return uuids
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
	return s.app.BankKeeper.GetBalance(s.ctx, addr, app.BondDenom).Amount
}

func (s *KeeperTestSuite) moduleBalance() sdkmath.Int {
	return s.balance(authtypes.NewModuleAddress(types.ModuleName))
}

func (s *KeeperTestSuite) supply() sdkmath.Int {
	return s.app.BankKeeper.GetSupply(s.ctx, app.BondDenom).Amount
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

func ugpu(n int64) sdk.Coin { return sdk.NewInt64Coin(app.BondDenom, n) }

func abciEvent(e sdk.Event) abci.Event { return abci.Event(e) }
