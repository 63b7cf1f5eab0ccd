//go:build sims

package app_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/stretchr/testify/require"

	"cosmossdk.io/log/v2"

	"github.com/cosmos/cosmos-sdk/baseapp"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"
	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	simtypes "github.com/cosmos/cosmos-sdk/types/simulation"
	authzkeeper "github.com/cosmos/cosmos-sdk/x/authz/keeper"
	"github.com/cosmos/cosmos-sdk/x/feegrant"
	simcli "github.com/cosmos/cosmos-sdk/x/simulation/client/cli"
	slashingtypes "github.com/cosmos/cosmos-sdk/x/slashing/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	"github.com/idlegpu/idlegpu/app"
)

// The SDK's simulator flags (-NumBlocks, -BlockSize, -Commit, -Verbose, …)
// plus which seeds to run and how often each runs in the determinism test.
// `make sim` and `make sim-long` set them.
var (
	flagSeeds = flag.String("Seeds", "1,2", "comma-separated simulation seeds")
	flagRuns  = flag.Int("Runs", 2, "runs per seed in TestAppStateDeterminism")
)

func init() {
	simcli.GetSimulatorFlags()
}

func seeds(t *testing.T) []int64 {
	var out []int64
	for _, s := range strings.Split(*flagSeeds, ",") {
		seed, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		require.NoError(t, err, "bad -Seeds value %q", *flagSeeds)
		out = append(out, seed)
	}
	return out
}

// newSimApp prunes IAVL synchronously: async pruning starts a goroutine per
// store that only closing the store stops, and many sims run in one process.
func newSimApp(logger log.Logger, db dbm.DB, loadLatest bool, appOpts servertypes.AppOptions, opts ...func(*baseapp.BaseApp)) *app.App {
	return app.New(logger, db, loadLatest, appOpts, append(opts, baseapp.SetIAVLSyncPruning(true))...)
}

func setupStateFactory(a *app.App) simsx.SimStateFactory {
	return simsx.SimStateFactory{
		Codec:         a.AppCodec(),
		AppStateFn:    simtestutil.AppStateFn(a.AppCodec(), a.SimulationManager(), a.DefaultGenesis()),
		BlockedAddr:   app.BlockedAddresses(),
		AccountSource: a.AccountKeeper,
		BalanceSource: a.BankKeeper,
	}
}

// TestFullAppSimulation runs random blocks of random messages of every module
// (the market modules' gov proposals included), checks the export, and then
// the market modules' invariants.
func TestFullAppSimulation(t *testing.T) {
	simsx.RunWithSeeds(t, newSimApp, setupStateFactory, seeds(t), nil, checkInvariants)
}

// checkInvariants runs every market module's invariants on the final state.
func checkInvariants(tb testing.TB, ti simsx.TestInstance[*app.App], _ []simtypes.Account) {
	tb.Helper()
	ctx := ti.App.NewContextLegacy(true, cmtproto.Header{Height: ti.App.LastBlockHeight()})
	require.NoError(tb, ti.App.ProviderKeeper.CheckInvariants(ctx))
	require.NoError(tb, ti.App.OfferKeeper.CheckInvariants(ctx))
	require.NoError(tb, ti.App.AuctionKeeper.CheckInvariants(ctx))
	require.NoError(tb, ti.App.SettlementKeeper.CheckInvariants(ctx))
}

// TestAppImportExport exports a simulated chain, imports it into a fresh app
// and requires every store to be equal, key by key.
func TestAppImportExport(t *testing.T) {
	simsx.RunWithSeeds(t, newSimApp, setupStateFactory, seeds(t), nil, func(tb testing.TB, ti simsx.TestInstance[*app.App], _ []simtypes.Account) {
		tb.Helper()
		a := ti.App
		exported, err := a.ExportAppStateAndValidators(false, nil, nil)
		require.NoError(tb, err)

		imported := simsx.NewSimulationAppInstance(tb, ti.Cfg, newSimApp).App
		var genesisState map[string]json.RawMessage
		require.NoError(tb, json.Unmarshal(exported.AppState, &genesisState))
		ctxB := imported.NewContextLegacy(true, cmtproto.Header{Height: a.LastBlockHeight(), ChainID: simsx.SimAppChainID})
		_, err = imported.ModuleManager.InitGenesis(ctxB, imported.AppCodec(), genesisState)
		if err != nil && strings.Contains(err.Error(), "validator set is empty after InitGenesis") {
			tb.Skip("every validator was unbonded by the simulation: nothing to import")
		}
		require.NoError(tb, err)
		require.NoError(tb, imported.UpgradeKeeper.SetModuleVersionMap(ctxB, imported.ModuleManager.GetVersionMap()))
		require.NoError(tb, imported.StoreConsensusParams(ctxB, exported.ConsensusParams))

		// Queues and caches that are rebuilt rather than exported.
		skip := map[string][][]byte{
			stakingtypes.StoreKey: {
				stakingtypes.UnbondingQueueKey, stakingtypes.RedelegationQueueKey, stakingtypes.ValidatorQueueKey,
				stakingtypes.HistoricalInfoKey, stakingtypes.UnbondingIDKey, stakingtypes.UnbondingIndexKey,
				stakingtypes.UnbondingTypeKey, stakingtypes.ValidatorUpdatesKey,
			},
			authzkeeper.StoreKey:   {authzkeeper.GrantQueuePrefix},
			feegrant.StoreKey:      {feegrant.FeeAllowanceQueueKeyPrefix},
			slashingtypes.StoreKey: {slashingtypes.ValidatorMissedBlockBitmapKeyPrefix},
		}
		assertEqualStores(tb, a, imported, skip)
	})
}

// TestAppStateDeterminism runs each seed -Runs times and requires the same
// app hash every time: a map iteration, a float or the wall clock anywhere in
// the state machine shows up here as a different hash.
func TestAppStateDeterminism(t *testing.T) {
	var runSeeds []int64
	for _, s := range seeds(t) {
		for range *flagRuns {
			runSeeds = append(runSeeds, s)
		}
	}
	var mu sync.Mutex
	hashes := make(map[int64][][]byte)
	check := func(tb testing.TB, ti simsx.TestInstance[*app.App], _ []simtypes.Account) {
		tb.Helper()
		seed, hash := ti.Cfg.Seed, ti.App.LastCommitID().Hash
		mu.Lock()
		defer mu.Unlock()
		for i, other := range hashes[seed] {
			require.Equal(tb, other, hash, "seed %d: run %d and run %d disagree on the app hash", seed, i, len(hashes[seed]))
		}
		hashes[seed] = append(hashes[seed], hash)
	}
	// Seeds run as parallel subtests; Cleanup runs once all have finished.
	// The SDK skips a seed whose random genesis has no validator ("empty
	// validator set"): then every run of it skips, the same way. A seed
	// some of whose runs reach the check and others not is a failure, and
	// so is a test in which no seed reached it.
	t.Cleanup(func() {
		reached := 0
		for _, s := range seeds(t) {
			if n := len(hashes[s]); n > 0 {
				require.Equal(t, *flagRuns, n, "seed %d: every run must reach the hash check", s)
				reached++
			}
		}
		require.Positive(t, reached, "no seed reached the hash check")
	})
	simsx.RunWithSeeds(t, newSimApp, setupStateFactory, runSeeds, nil, check)
}

func assertEqualStores(tb testing.TB, a, b *app.App, skip map[string][][]byte) {
	tb.Helper()
	ctxA := a.NewContextLegacy(true, cmtproto.Header{Height: a.LastBlockHeight()})
	ctxB := b.NewContextLegacy(true, cmtproto.Header{Height: a.LastBlockHeight()})
	decoders := a.SimulationManager().StoreDecoders
	compared := 0
	for _, key := range a.GetStoreKeys() {
		kvKey, ok := key.(*storetypes.KVStoreKey)
		if !ok {
			continue
		}
		name := kvKey.Name()
		diffA, diffB := simtestutil.DiffKVStores(ctxA.KVStore(kvKey), ctxB.KVStore(b.GetKey(name)), skip[name])
		require.Equal(tb, len(diffA), len(diffB), "store %s: unequal key sets", name)
		require.Empty(tb, diffA, simtestutil.GetSimulationLog(name, decoders, diffA, diffB))
		compared++
	}
	require.Positive(tb, compared)
	fmt.Printf("compared %d stores\n", compared)
}
