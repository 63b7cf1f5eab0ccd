package keeper

import (
	"fmt"
	"time"

	"cosmossdk.io/collections"
	collcodec "cosmossdk.io/collections/codec"
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/store"

	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Keeper owns the x/settlement state.
type Keeper struct {
	cdc          codec.BinaryCodec
	storeService store.KVStoreService
	addressCodec address.Codec
	bank         types.BankKeeper
	auction      types.AuctionKeeper
	providers    types.ProviderKeeper
	offers       types.OfferKeeper
	// feeCollector receives the take_rate share of every payment.
	feeCollector string

	// authority may change the params (the gov module account by default).
	authority string

	// Schema is the module's collections schema.
	Schema collections.Schema
	// Params are the module parameters.
	Params collections.Item[types.Params]
	// Headers is the ring of recent block headers proofs bind to.
	Headers collections.Map[int64, types.HeaderRecord]
	// Progress maps lease id → how far its epochs are settled.
	Progress collections.Map[uint64, types.LeaseProgress]
	// Proofs maps (lease id, epoch) → the accepted proof, kept proof_retention epochs.
	Proofs collections.Map[collections.Pair[uint64, uint64], types.ProofRecord]
	// Rewards maps (provider, denom) → unclaimed amount.
	Rewards collections.Map[collections.Pair[sdk.AccAddress, string], sdkmath.Int]
	// Due holds (next_due, lease id) of every live lease, so liveness is
	// O(overdue) per block, never a scan of all leases.
	Due collections.KeySet[collections.Pair[time.Time, uint64]]
	// Prune holds (prune_at, lease id, epoch) of every stored proof.
	Prune collections.KeySet[collections.Triple[time.Time, uint64, uint64]]
	// Audits maps audit id → Audit, live and resolved (pruned after retention).
	Audits collections.Map[uint64, types.Audit]
	// AuditSeq numbers audits.
	AuditSeq collections.Sequence
	// AuditQueue holds (time, audit id) of every stored audit: when its next
	// automatic step (answer deadline, proof deadline, pruning) is due.
	AuditQueue collections.KeySet[collections.Pair[time.Time, uint64]]
	// LiveAudit maps GPU UUID → its one live audit.
	LiveAudit collections.Map[string, uint64]
	// Verifications maps GPU UUID → its audit record.
	Verifications collections.Map[string, types.GPUVerification]
	// Expiry holds (verified_until, GPU UUID) of verified GPUs.
	Expiry collections.KeySet[collections.Pair[time.Time, string]]
	// Holds maps GPU UUID → the offer its hold occupies it in (0: none).
	Holds collections.Map[string, uint64]
	// LostTime is the chain's lost time in ms (keys.go).
	LostTime collections.Item[uint64]
	// AwaitingEntropy holds (answered height, audit id) of audits waiting
	// for the next block's hash to draw their samples.
	AwaitingEntropy collections.KeySet[collections.Pair[int64, uint64]]
	// Cooldowns maps GPU UUID → opening time of its latest audit.
	Cooldowns collections.Map[string, time.Time]
	// Windows holds (window start, lease id) of each watched lease's next
	// epoch: no header a pending proof may bind to is pruned.
	Windows collections.KeySet[collections.Pair[time.Time, uint64]]
	// FeeRemainders maps (provider, denom) → the fee fraction its payments
	// carry, in 1/10000 units (fee_carry.go).
	FeeRemainders collections.Map[collections.Pair[sdk.AccAddress, string], uint32]
}

// NewKeeper returns the x/settlement keeper. It panics on an invalid authority
// because that is a wiring bug, caught when the app starts.
func NewKeeper(cdc codec.BinaryCodec, storeService store.KVStoreService, addressCodec address.Codec,
	bank types.BankKeeper, auction types.AuctionKeeper, providers types.ProviderKeeper, offers types.OfferKeeper, feeCollector, authority string,
) Keeper {
	if _, err := addressCodec.StringToBytes(authority); err != nil {
		panic(fmt.Errorf("invalid %s authority address %q: %w", types.ModuleName, authority, err))
	}

	sb := collections.NewSchemaBuilder(storeService)
	k := Keeper{
		cdc:          cdc,
		storeService: storeService,
		addressCodec: addressCodec,
		bank:         bank,
		auction:      auction,
		providers:    providers,
		offers:       offers,
		feeCollector: feeCollector,
		authority:    authority,
		Params:       collections.NewItem(sb, types.ParamsKey, "params", codec.CollValue[types.Params](cdc)),
		Headers:      collections.NewMap(sb, types.HeadersKey, "headers", collections.Int64Key, codec.CollValue[types.HeaderRecord](cdc)),
		Progress:     collections.NewMap(sb, types.ProgressKey, "progress", collections.Uint64Key, codec.CollValue[types.LeaseProgress](cdc)),
		Proofs: collections.NewMap(sb, types.ProofsKey, "proofs",
			collections.PairKeyCodec(collections.Uint64Key, collections.Uint64Key), codec.CollValue[types.ProofRecord](cdc)),
		Rewards: collections.NewMap(sb, types.RewardsKey, "rewards",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.StringKey), sdk.IntValue),
		Due: collections.NewKeySet(sb, types.DueKey, "due", collections.PairKeyCodec(sdk.TimeKey, collections.Uint64Key)),
		Prune: collections.NewKeySet(sb, types.PruneKey, "prune",
			collections.TripleKeyCodec(sdk.TimeKey, collections.Uint64Key, collections.Uint64Key)),
		Audits:     collections.NewMap(sb, types.AuditsKey, "audits", collections.Uint64Key, codec.CollValue[types.Audit](cdc)),
		AuditSeq:   collections.NewSequence(sb, types.AuditSeqKey, "audit_seq"),
		AuditQueue: collections.NewKeySet(sb, types.AuditQueueKey, "audit_queue", collections.PairKeyCodec(sdk.TimeKey, collections.Uint64Key)),
		LiveAudit:  collections.NewMap(sb, types.LiveAuditByGPUKey, "live_audit_by_gpu", collections.StringKey, collections.Uint64Value),
		Verifications: collections.NewMap(sb, types.VerificationsKey, "verifications", collections.StringKey,
			codec.CollValue[types.GPUVerification](cdc)),
		Expiry:   collections.NewKeySet(sb, types.ExpiryKey, "expiry", collections.PairKeyCodec(sdk.TimeKey, collections.StringKey)),
		Holds:    collections.NewMap(sb, types.HoldsKey, "holds", collections.StringKey, collections.Uint64Value),
		LostTime: collections.NewItem(sb, types.LostTimeKey, "lost_time", collections.Uint64Value),
		AwaitingEntropy: collections.NewKeySet(sb, types.AwaitingEntropyKey, "awaiting_entropy",
			collections.PairKeyCodec(collections.Int64Key, collections.Uint64Key)),
		Cooldowns: collections.NewMap(sb, types.CooldownKey, "cooldowns", collections.StringKey, collcodec.KeyToValueCodec(sdk.TimeKey)),
		Windows:   collections.NewKeySet(sb, types.WindowsKey, "windows", collections.PairKeyCodec(sdk.TimeKey, collections.Uint64Key)),
		FeeRemainders: collections.NewMap(sb, types.FeeRemaindersKey, "fee_remainders",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.StringKey), collections.Uint32Value),
	}

	schema, err := sb.Build()
	if err != nil {
		panic(err)
	}
	k.Schema = schema
	return k
}

// Authority returns the address allowed to change the module's params.
func (k Keeper) Authority() string { return k.authority }
