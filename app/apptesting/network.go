package apptesting

import (
	"testing"
	"time"

	"cosmossdk.io/depinject"
	"cosmossdk.io/log/v2"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	pruningtypes "github.com/cosmos/cosmos-sdk/store/v2/pruning/types"
	"github.com/cosmos/cosmos-sdk/testutil/network"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// GasPrice is the in-process network's minimum gas price, which clients pay.
const GasPrice = "0.0025" + chaincfg.BondDenom

// NetworkConfig is an in-process network of the real idlegpu app (app.New,
// not a runtime-only build) with its default genesis, one-second blocks
// and GasPrice; callers adjust the rest (genesis, staking tokens).
func NetworkConfig(t testing.TB, chainID string, validators int) network.Config {
	t.Helper()
	var (
		cdc         codec.Codec
		registry    codectypes.InterfaceRegistry
		txConfig    client.TxConfig
		legacyAmino *codec.LegacyAmino
	)
	require.NoError(t, depinject.Inject(
		depinject.Configs(app.AppConfig(), depinject.Supply(log.NewNopLogger(), simtestutil.EmptyAppOptions{})),
		&cdc, &registry, &txConfig, &legacyAmino,
	))
	cfg := network.DefaultConfig(func() network.TestFixture { return network.TestFixture{} })
	cfg.Codec, cfg.InterfaceRegistry, cfg.TxConfig, cfg.LegacyAmino = cdc, registry, txConfig, legacyAmino
	cfg.ChainID = chainID
	cfg.BondDenom = chaincfg.BondDenom
	cfg.MinGasPrices = GasPrice
	cfg.TimeoutCommit = time.Second
	cfg.NumValidators = validators
	cfg.GenesisState = app.New(log.NewNopLogger(), dbm.NewMemDB(), true, simtestutil.EmptyAppOptions{}).DefaultGenesis()
	cfg.AppConstructor = func(val network.ValidatorI) servertypes.Application {
		return app.New(val.GetCtx().Logger, dbm.NewMemDB(), true, simtestutil.EmptyAppOptions{},
			baseapp.SetPruning(pruningtypes.NewPruningOptionsFromString(val.GetAppConfig().Pruning)),
			baseapp.SetMinGasPrices(val.GetAppConfig().MinGasPrices),
			baseapp.SetChainID(chainID),
		)
	}
	return cfg
}
