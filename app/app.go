// Package app wires the idlegpu chain: the SDK modules it builds on and the
// four market modules (provider, offer, auction, settlement).
package app

import (
	"encoding/json"

	dbm "github.com/cosmos/cosmos-db"

	clienthelpers "cosmossdk.io/client/v2/helpers"
	"cosmossdk.io/depinject"
	"cosmossdk.io/log/v2"

	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/runtime"
	"github.com/cosmos/cosmos-sdk/server"
	"github.com/cosmos/cosmos-sdk/server/api"
	"github.com/cosmos/cosmos-sdk/server/config"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/x/auth"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/app/ante/sigverify"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// DefaultNodeHome is where idlegpud keeps its config and data (~/.idlegpu).
var DefaultNodeHome string

var (
	_ runtime.AppI            = (*App)(nil)
	_ servertypes.Application = (*App)(nil)
)

func init() {
	var err error
	clienthelpers.EnvPrefix = "IDLEGPU"
	DefaultNodeHome, err = clienthelpers.GetNodeHomeDirectory("." + chaincfg.Name)
	if err != nil {
		panic(err)
	}
}

// App is the idlegpu application: the SDK runtime plus the keepers.
type App struct {
	*runtime.App
	Keepers

	legacyAmino       *codec.LegacyAmino
	appCodec          codec.Codec
	txConfig          client.TxConfig
	interfaceRegistry codectypes.InterfaceRegistry
	basicManager      module.BasicManager

	sm          *module.SimulationManager
	sigVerifier *sigverify.Verifier
}

// New builds the application over db. Options such as pruning, min gas
// prices and the chain id come from the server through baseAppOptions.
func New(
	logger log.Logger,
	db dbm.DB,
	loadLatest bool,
	appOpts servertypes.AppOptions,
	baseAppOptions ...func(*baseapp.BaseApp),
) *App {
	app := &App{}
	var appBuilder *runtime.AppBuilder

	targets := append([]any{
		&appBuilder,
		&app.appCodec,
		&app.legacyAmino,
		&app.txConfig,
		&app.interfaceRegistry,
		&app.basicManager,
	}, app.Keepers.injectTargets()...)

	if err := depinject.Inject(
		depinject.Configs(AppConfig(), depinject.Supply(appOpts, logger)),
		targets...,
	); err != nil {
		panic(err)
	}

	app.App = appBuilder.Build(db, baseAppOptions...)
	// x/provider bounds a registered GPU by the model table x/settlement
	// keeps (x/settlement depends on x/provider, so the table is set here).
	app.ProviderKeeper.SetGPUModels(gpuModelTable{app.SettlementKeeper})

	// The chain's own checks in front of the SDK's ante chain, whose
	// signatures go through libsecp256k1 (ante_handler.go).
	app.SetAnteHandler(app.newAnteHandler())

	// The simulation manager sees every module. Auth is overridden because
	// its default genesis generator makes vesting accounts, a module this
	// chain does not include.
	app.sm = module.NewSimulationManagerFromAppModules(app.ModuleManager.Modules, map[string]module.AppModuleSimulation{
		authtypes.ModuleName: auth.NewAppModule(app.appCodec, app.AccountKeeper, baseGenesisAccounts, nil),
	})
	app.sm.RegisterStoreDecoders()

	app.registerUpgrades()

	if err := app.Load(loadLatest); err != nil {
		panic(err)
	}
	return app
}

// LegacyAmino returns the amino codec (kept for legacy JSON signing only).
func (app *App) LegacyAmino() *codec.LegacyAmino { return app.legacyAmino }

// AppCodec returns the app's protobuf codec.
func (app *App) AppCodec() codec.Codec { return app.appCodec }

// InterfaceRegistry returns the app's interface registry.
func (app *App) InterfaceRegistry() codectypes.InterfaceRegistry { return app.interfaceRegistry }

// TxConfig returns the app's transaction config.
func (app *App) TxConfig() client.TxConfig { return app.txConfig }

// GetKey returns the KV store key of a module (tests and simulation only).
func (app *App) GetKey(storeKey string) *storetypes.KVStoreKey {
	key, _ := app.UnsafeFindStoreKey(storeKey).(*storetypes.KVStoreKey)
	return key
}

// SigVerifier returns the verifier the ante handler checks secp256k1
// signatures with, and its cache of verified ones.
func (app *App) SigVerifier() *sigverify.Verifier { return app.sigVerifier }

// SimulationManager returns the app's simulation manager.
func (app *App) SimulationManager() *module.SimulationManager { return app.sm }

// ModuleBasics returns the module basics with the chain's genesis defaults
// (see GenesisBasics): what `init`, `genesis validate` and tests use.
func (app *App) ModuleBasics() module.BasicManager { return GenesisBasics(app.basicManager) }

// DefaultGenesis returns the genesis a new chain starts from.
func (app *App) DefaultGenesis() map[string]json.RawMessage {
	return app.ModuleBasics().DefaultGenesis(app.appCodec)
}

// RegisterAPIRoutes mounts the REST routes and the swagger UI when enabled.
func (app *App) RegisterAPIRoutes(apiSvr *api.Server, apiConfig config.APIConfig) {
	app.App.RegisterAPIRoutes(apiSvr, apiConfig)
	if err := server.RegisterSwaggerAPI(apiSvr.ClientCtx, apiSvr.Router, apiConfig.Swagger); err != nil {
		panic(err)
	}
}

// baseGenesisAccounts gives every simulated genesis account a plain base account.
func baseGenesisAccounts(simState *module.SimulationState) authtypes.GenesisAccounts {
	accs := make(authtypes.GenesisAccounts, len(simState.Accounts))
	for i, acc := range simState.Accounts {
		accs[i] = authtypes.NewBaseAccountWithAddress(acc.Address)
	}
	return accs
}
