// Package apptesting builds real idlegpu apps for tests: a fresh chain with
// one bonded validator and funded accounts, and helpers to produce blocks.
// Module integration tests use it so they run against the wired app, not a
// hand-assembled keeper graph.
package apptesting

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	cmttypes "github.com/cometbft/cometbft/types"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/stretchr/testify/require"

	"cosmossdk.io/log/v2"
	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/baseapp"
	cryptocodec "github.com/cosmos/cosmos-sdk/crypto/codec"
	"github.com/cosmos/cosmos-sdk/crypto/keys/ed25519"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// ChainID is the chain id of test apps.
const ChainID = "idlegpu-test"

// GenesisTime is the fixed genesis time of test chains, so block times and
// everything derived from them are reproducible.
var GenesisTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Account is a funded genesis account with its key.
type Account struct {
	PrivKey *secp256k1.PrivKey
	Address sdk.AccAddress
	Coins   sdk.Coins
}

// NewAccounts returns n accounts with deterministic keys, each funded with coins.
func NewAccounts(n int, coins sdk.Coins) []Account {
	accs := make([]Account, n)
	for i := range accs {
		pk := secp256k1.GenPrivKeyFromSecret([]byte{byte(i), 'a', 'c', 'c'})
		accs[i] = Account{PrivKey: pk, Address: sdk.AccAddress(pk.PubKey().Address()), Coins: coins}
	}
	return accs
}

// NewApp returns an idlegpu app over a fresh in-memory database, before InitChain.
func NewApp(tb testing.TB) *app.App {
	tb.Helper()
	return NewAppWithDB(tb, dbm.NewMemDB())
}

// NewAppWithDB returns an idlegpu app over db, before InitChain.
func NewAppWithDB(tb testing.TB, db dbm.DB) *app.App {
	tb.Helper()
	return app.New(log.NewNopLogger(), db, true, simtestutil.NewAppOptionsWithFlagHome(tb.TempDir()),
		baseapp.SetChainID(ChainID))
}

// Genesis returns a's default genesis with one bonded validator (power 1,
// delegated by the first account) and the accounts funded.
func Genesis(tb testing.TB, a *app.App, val *cmttypes.Validator, accs []Account) map[string]json.RawMessage {
	tb.Helper()
	require.NotEmpty(tb, accs, "the validator's delegation needs a first account")
	pk, err := cryptocodec.FromCmtPubKeyInterface(val.PubKey)
	require.NoError(tb, err)
	return genesisWith(tb, a, accs, []bondedValidator{{sdk.ValAddress(val.Address), pk, accs[0].Address, 1}})
}

// GenesisWithValidators is Genesis with one bonded validator per power,
// each operated and self-delegated by the account at its index, so tests
// can sign as validator operators.
func GenesisWithValidators(tb testing.TB, a *app.App, accs []Account, powers ...int64) map[string]json.RawMessage {
	tb.Helper()
	require.GreaterOrEqual(tb, len(accs), len(powers), "each validator needs an operator account")
	vals := make([]bondedValidator, len(powers))
	for i, p := range powers {
		pk := ed25519.GenPrivKeyFromSecret([]byte(fmt.Sprintf("idlegpu-test-validator-%d", i))).PubKey()
		vals[i] = bondedValidator{sdk.ValAddress(accs[i].Address), pk, accs[i].Address, p}
	}
	return genesisWith(tb, a, accs, vals)
}

type bondedValidator struct {
	operator  sdk.ValAddress
	consensus cryptotypes.PubKey
	delegator sdk.AccAddress
	power     int64
}

func genesisWith(tb testing.TB, a *app.App, accs []Account, vals []bondedValidator) map[string]json.RawMessage {
	tb.Helper()
	cdc := a.AppCodec()
	gen := a.DefaultGenesis()

	genAccs := make([]authtypes.GenesisAccount, len(accs))
	balances := make([]banktypes.Balance, 0, len(accs)+1)
	supply := sdk.NewCoins()
	for i, acc := range accs {
		genAccs[i] = authtypes.NewBaseAccount(acc.Address, nil, uint64(i), 0)
		balances = append(balances, banktypes.Balance{Address: acc.Address.String(), Coins: acc.Coins})
		supply = supply.Add(acc.Coins...)
	}
	gen[authtypes.ModuleName] = cdc.MustMarshalJSON(authtypes.NewGenesisState(authtypes.DefaultParams(), genAccs))

	var validators []stakingtypes.Validator
	var delegations []stakingtypes.Delegation
	bondedTotal := sdkmath.ZeroInt()
	for i, v := range vals {
		validator, err := stakingtypes.NewValidator(v.operator.String(), v.consensus, stakingtypes.Description{Moniker: fmt.Sprintf("val%d", i)})
		require.NoError(tb, err)
		bond := sdk.DefaultPowerReduction.MulRaw(v.power)
		validator.Status = stakingtypes.Bonded
		validator.Tokens = bond
		validator.DelegatorShares = sdkmath.LegacyNewDecFromInt(bond)
		validator.MinSelfDelegation = sdkmath.OneInt()
		validators = append(validators, validator)
		delegations = append(delegations, stakingtypes.NewDelegation(v.delegator.String(), validator.OperatorAddress, validator.DelegatorShares))
		bondedTotal = bondedTotal.Add(bond)
	}
	gen[stakingtypes.ModuleName] = cdc.MustMarshalJSON(stakingtypes.NewGenesisState(stakingtypes.DefaultParams(), validators, delegations))

	bonded := sdk.NewCoins(sdk.NewCoin(chaincfg.BondDenom, bondedTotal))
	balances = append(balances, banktypes.Balance{
		Address: authtypes.NewModuleAddress(stakingtypes.BondedPoolName).String(),
		Coins:   bonded,
	})
	supply = supply.Add(bonded...)

	var bankGen banktypes.GenesisState
	cdc.MustUnmarshalJSON(gen[banktypes.ModuleName], &bankGen)
	bankGen.Balances = balances
	bankGen.Supply = supply
	gen[banktypes.ModuleName] = cdc.MustMarshalJSON(&bankGen)

	// The test genesis pre-mints the accounts' uusdc with no vault deposit
	// behind it; x/bridge must be told, holder by holder, or its books
	// refuse the genesis.
	var bridgeGen bridgetypes.GenesisState
	cdc.MustUnmarshalJSON(gen[bridgetypes.ModuleName], &bridgeGen)
	denom := bridgeGen.Params.Denom
	bridgeGen.Totals.Unbacked = supply.AmountOf(denom)
	for _, acc := range accs {
		if amt := acc.Coins.AmountOf(denom); amt.IsPositive() {
			bridgeGen.UnbackedHolders = append(bridgeGen.UnbackedHolders,
				bridgetypes.UnbackedHolder{Address: acc.Address.String(), Amount: amt})
		}
	}
	gen[bridgetypes.ModuleName] = cdc.MustMarshalJSON(&bridgeGen)
	return gen
}

// NewValidator returns a deterministic CometBFT validator of power 1.
func NewValidator() *cmttypes.Validator {
	pk := ed25519.GenPrivKeyFromSecret([]byte("idlegpu-test-validator"))
	cmtPk, err := cryptocodec.ToCmtPubKeyInterface(pk.PubKey())
	if err != nil {
		panic(err)
	}
	return cmttypes.NewValidator(cmtPk, 1)
}

// InitChain runs InitChain on a with the given genesis and commits block 0's state.
func InitChain(tb testing.TB, a *app.App, gen map[string]json.RawMessage) *abci.ResponseInitChain {
	tb.Helper()
	stateBytes, err := cmtjson.MarshalIndent(gen, "", " ")
	require.NoError(tb, err)
	res, err := a.InitChain(&abci.RequestInitChain{
		ChainId:         ChainID,
		Time:            GenesisTime,
		ConsensusParams: simtestutil.DefaultConsensusParams,
		AppStateBytes:   stateBytes,
	})
	require.NoError(tb, err)
	return res
}

// Setup returns a chain at height 1: genesis with one validator and accs
// funded, and one committed block.
func Setup(tb testing.TB, accs []Account) *app.App {
	tb.Helper()
	return SetupWithDB(tb, dbm.NewMemDB(), accs)
}

// SetupWithDB is Setup over db. Benchmarks use a goleveldb database, as a
// node does: cosmos-db's MemDB iterates through a goroutine and a channel,
// which would dominate (and add noise to) any timing of range scans.
func SetupWithDB(tb testing.TB, db dbm.DB, accs []Account) *app.App {
	tb.Helper()
	a := NewAppWithDB(tb, db)
	InitChain(tb, a, Genesis(tb, a, NewValidator(), accs))
	NextBlock(tb, a)
	return a
}

// BlockInterval is the time between the blocks NextBlock makes.
const BlockInterval = time.Second

// NextBlock finalizes and commits the next block, BlockInterval after the
// last one, with txs, and returns its FinalizeBlock response.
func NextBlock(tb testing.TB, a *app.App, txs ...[]byte) *abci.ResponseFinalizeBlock {
	tb.Helper()
	return NextBlockAt(tb, a, LastBlockTime(a).Add(BlockInterval), txs...)
}

// LastBlockTime is the time of the last committed block (genesis time
// before the first). NewContext would not do: it carries an empty header.
func LastBlockTime(a *app.App) time.Time {
	t := a.GetContextForCheckTx(nil).BlockTime()
	if t.IsZero() {
		return GenesisTime
	}
	return t
}

// NextBlockAt finalizes and commits the next block at time t, with txs.
func NextBlockAt(tb testing.TB, a *app.App, t time.Time, txs ...[]byte) *abci.ResponseFinalizeBlock {
	tb.Helper()
	val := NewValidator()
	height := a.LastBlockHeight() + 1
	res, err := a.FinalizeBlock(&abci.RequestFinalizeBlock{
		Height:             height,
		Hash:               BlockHash(height),
		Time:               t,
		Txs:                txs,
		NextValidatorsHash: cmttypes.NewValidatorSet([]*cmttypes.Validator{val}).Hash(),
		ProposerAddress:    val.Address,
	})
	require.NoError(tb, err)
	_, err = a.Commit()
	require.NoError(tb, err)
	return res
}

// BlockHash is the header hash NextBlockAt gives a height: fixed, so tests
// can bind x/settlement proof challenges to it.
func BlockHash(height int64) []byte {
	h := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("idlegpu-test-block"), uint64(height)))
	return h[:]
}
