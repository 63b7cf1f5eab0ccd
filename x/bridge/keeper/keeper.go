package keeper

import (
	"fmt"

	"cosmossdk.io/collections"
	collcodec "cosmossdk.io/collections/codec"
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/store"
	"cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// Keeper owns the x/bridge state: registered EVM signers, valsets and their
// confirmations, deposit attestations and credits, cumulative withdrawals,
// payout roots and their leaves, and validators' missed duties.
type Keeper struct {
	cdc          codec.BinaryCodec
	addressCodec address.Codec
	valCodec     address.Codec
	staking      types.StakingKeeper
	slashing     types.SlashingKeeper
	bank         types.BankKeeper
	authority    string

	Schema   collections.Schema
	Params   collections.Item[types.Params]
	Totals   collections.Item[types.Totals]
	Progress collections.Item[types.Progress]
	// Signers maps validator → its EVM signer.
	Signers collections.Map[sdk.ValAddress, types.EvmSigner]
	// Orchestrators maps orchestrator account → validator.
	Orchestrators collections.Map[sdk.AccAddress, sdk.ValAddress]
	// EvmSigners maps EVM address (20 bytes) → validator, so one key signs
	// for one validator.
	EvmSigners collections.Map[[]byte, sdk.ValAddress]
	Valsets    collections.Map[uint64, types.Valset]
	// ValsetConfirms maps (nonce, validator) → its signature.
	ValsetConfirms collections.Map[collections.Pair[uint64, sdk.ValAddress], types.Confirm]
	// Votes maps (deposit nonce, validator) → the claim it attested.
	Votes collections.Map[collections.Pair[uint64, sdk.ValAddress], types.DepositClaim]
	// VoteHistory maps (nonce, validator, EVM block hash) → the claim it
	// placed from that block, so equivocation is seen across supersedes
	// and revocations (attest.go: reattest).
	VoteHistory collections.Map[collections.Triple[uint64, sdk.ValAddress, string], types.DepositClaim]
	// LastAttested maps validator → the last deposit nonce it attested.
	LastAttested collections.Map[sdk.ValAddress, uint64]
	Deposits     collections.Map[uint64, types.Deposit]
	Conflicts    collections.Map[collections.Pair[uint64, sdk.ValAddress], types.Conflict]
	// Cumulative maps EVM address (20 bytes) → everything withdrawn to it.
	Cumulative   collections.Map[[]byte, math.Int]
	Roots        collections.Map[uint64, types.PayoutRoot]
	RootConfirms collections.Map[collections.Pair[uint64, sdk.ValAddress], types.Confirm]
	// Leaves maps (epoch, EVM address) → its cumulative in that root.
	Leaves collections.Map[collections.Pair[uint64, []byte], math.Int]
	Misses collections.Map[sdk.ValAddress, types.MissRecord]
	// Due is the queue of missed-duty checks: (height, kind, id).
	Due collections.KeySet[collections.Triple[int64, uint32, uint64]]
	// Unbacked maps account → how much of its balance of denom has no
	// deposit behind it (unbacked.go); absent means none.
	Unbacked collections.Map[sdk.AccAddress, math.Int]
	// SignerKeys maps every EVM address (20 bytes) a validator ever
	// registered → that validator, so a signature by a replaced key is
	// still its own.
	SignerKeys collections.Map[[]byte, types.SignerKey]
	// Equivocations maps (validator, kind, id) → the punished equivocation,
	// so one offence is punished once.
	Equivocations collections.Map[collections.Triple[sdk.ValAddress, uint32, uint64], types.Equivocation]

	// moduleAddr is the bridge's own account, which withdrawals burn from.
	moduleAddr sdk.AccAddress
}

// NewKeeper returns the x/bridge keeper. It panics on an invalid authority
// because that is a wiring bug, caught when the app starts.
func NewKeeper(cdc codec.BinaryCodec, storeService store.KVStoreService, addressCodec, valCodec address.Codec,
	staking types.StakingKeeper, slashing types.SlashingKeeper, bank types.BankKeeper, authority string,
) Keeper {
	if _, err := addressCodec.StringToBytes(authority); err != nil {
		panic(fmt.Errorf("invalid %s authority address %q: %w", types.ModuleName, authority, err))
	}
	sb := collections.NewSchemaBuilder(storeService)
	valConfirm := collections.PairKeyCodec(collections.Uint64Key, sdk.ValAddressKey)
	k := Keeper{
		cdc: cdc, addressCodec: addressCodec, valCodec: valCodec,
		staking: staking, slashing: slashing, bank: bank, authority: authority,
		Params:         collections.NewItem(sb, types.ParamsKey, "params", codec.CollValue[types.Params](cdc)),
		Totals:         collections.NewItem(sb, types.TotalsKey, "totals", codec.CollValue[types.Totals](cdc)),
		Progress:       collections.NewItem(sb, types.ProgressKey, "progress", codec.CollValue[types.Progress](cdc)),
		Signers:        collections.NewMap(sb, types.SignersKey, "signers", sdk.ValAddressKey, codec.CollValue[types.EvmSigner](cdc)),
		Orchestrators:  collections.NewMap(sb, types.OrchestratorsKey, "orchestrators", sdk.AccAddressKey, valAddrValue),
		EvmSigners:     collections.NewMap(sb, types.EvmSignersKey, "evm_signers", collections.BytesKey, valAddrValue),
		Valsets:        collections.NewMap(sb, types.ValsetsKey, "valsets", collections.Uint64Key, codec.CollValue[types.Valset](cdc)),
		ValsetConfirms: collections.NewMap(sb, types.ValsetConfirmKey, "valset_confirms", valConfirm, codec.CollValue[types.Confirm](cdc)),
		Votes:          collections.NewMap(sb, types.VotesKey, "votes", valConfirm, codec.CollValue[types.DepositClaim](cdc)),
		VoteHistory: collections.NewMap(sb, types.VoteHistoryKey, "vote_history",
			collections.TripleKeyCodec(collections.Uint64Key, sdk.ValAddressKey, collections.StringKey), codec.CollValue[types.DepositClaim](cdc)),
		LastAttested: collections.NewMap(sb, types.LastAttestedKey, "last_attested", sdk.ValAddressKey, collections.Uint64Value),
		Deposits:     collections.NewMap(sb, types.DepositsKey, "deposits", collections.Uint64Key, codec.CollValue[types.Deposit](cdc)),
		Conflicts:    collections.NewMap(sb, types.ConflictsKey, "conflicts", valConfirm, codec.CollValue[types.Conflict](cdc)),
		Cumulative:   collections.NewMap(sb, types.CumulativeKey, "cumulative", collections.BytesKey, sdk.IntValue),
		Roots:        collections.NewMap(sb, types.RootsKey, "roots", collections.Uint64Key, codec.CollValue[types.PayoutRoot](cdc)),
		RootConfirms: collections.NewMap(sb, types.RootConfirmKey, "root_confirms", valConfirm, codec.CollValue[types.Confirm](cdc)),
		Leaves: collections.NewMap(sb, types.LeavesKey, "leaves",
			collections.PairKeyCodec(collections.Uint64Key, collections.BytesKey), sdk.IntValue),
		Misses: collections.NewMap(sb, types.MissesKey, "misses", sdk.ValAddressKey, codec.CollValue[types.MissRecord](cdc)),
		Due: collections.NewKeySet(sb, types.DueKey, "due",
			collections.TripleKeyCodec(collections.Int64Key, collections.Uint32Key, collections.Uint64Key)),
		Unbacked:   collections.NewMap(sb, types.UnbackedKey, "unbacked", sdk.AccAddressKey, sdk.IntValue),
		SignerKeys: collections.NewMap(sb, types.SignerKeysKey, "signer_keys", collections.BytesKey, codec.CollValue[types.SignerKey](cdc)),
		Equivocations: collections.NewMap(sb, types.EquivocationsKey, "equivocations",
			collections.TripleKeyCodec(sdk.ValAddressKey, collections.Uint32Key, collections.Uint64Key), codec.CollValue[types.Equivocation](cdc)),
		moduleAddr: authtypes.NewModuleAddress(types.ModuleName),
	}
	schema, err := sb.Build()
	if err != nil {
		panic(err)
	}
	k.Schema = schema
	return k
}

// valAddrValue stores a validator address as a value.
var valAddrValue = collcodec.KeyToValueCodec(sdk.ValAddressKey)

// Authority returns the address allowed to change the module's params.
func (k Keeper) Authority() string { return k.authority }
