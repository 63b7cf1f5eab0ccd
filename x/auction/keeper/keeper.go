package keeper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cosmossdk.io/collections"
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/store"

	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// Keeper owns the x/auction state: jobs with their escrow, bids, leases and
// the queues EndBlock works through.
type Keeper struct {
	cdc codec.BinaryCodec
	// storeService is read raw only by migrations (fields a type dropped).
	storeService store.KVStoreService
	addressCodec address.Codec
	bank         types.BankKeeper
	providers    types.ProviderKeeper
	offers       types.OfferKeeper
	// payee is the module account PayLeases pays (injected: the settling module).
	payee string
	// hooks is shared by every copy of the keeper, so SetHooks after the
	// app is wired reaches the copies other modules hold.
	hooks *leaseHooks
	// vault is x/bridge's vault (withdrawals, the EIP-712 domain), shared by every copy like
	// hooks (SetEvmVault).
	vault *evmVault

	// authority may change the params (the gov module account by default).
	authority string

	// Schema is the module's collections schema.
	Schema collections.Schema
	// Params are the module parameters.
	Params collections.Item[types.Params]
	// Jobs maps job id → job.
	Jobs collections.Map[uint64, types.Job]
	// JobSeq gives job ids, from 1.
	JobSeq collections.Sequence
	// Bids maps (job id, provider) → bid: one per provider per job.
	Bids collections.Map[collections.Pair[uint64, sdk.AccAddress], types.Bid]
	// BidSeq orders bids.
	BidSeq collections.Sequence
	// Leases maps lease id → lease.
	Leases collections.Map[uint64, types.Lease]
	// LeaseSeq gives lease ids, from 1.
	LeaseSeq collections.Sequence
	// ClearingQueue holds (bid deadline, job id) of OPEN jobs.
	ClearingQueue collections.KeySet[collections.Pair[int64, uint64]]
	// StartQueue holds (start deadline, lease id) of PENDING leases.
	StartQueue collections.KeySet[collections.Pair[time.Time, uint64]]
	// RenterJobs, ProviderLeases and RenterLeases serve the list queries.
	RenterJobs     collections.KeySet[collections.Pair[sdk.AccAddress, uint64]]
	ProviderLeases collections.KeySet[collections.Pair[sdk.AccAddress, uint64]]
	RenterLeases   collections.KeySet[collections.Pair[sdk.AccAddress, uint64]]
	// LiveLeases holds (provider, lease id) of the leases not yet ended.
	LiveLeases collections.KeySet[collections.Pair[sdk.AccAddress, uint64]]
	// UsedNonces maps (wallet signer, nonce) → deadline (unix seconds) of
	// nonces refused until their deadline passes.
	UsedNonces collections.Map[collections.Pair[sdk.AccAddress, uint64], uint64]
	// NonceExpiry holds (deadline, signer, nonce): when EndBlock drops each.
	NonceExpiry collections.KeySet[collections.Triple[uint64, sdk.AccAddress, uint64]]
	// RetiredJobs holds (prune_at, job id) of jobs that ended for good.
	RetiredJobs collections.KeySet[collections.Pair[time.Time, uint64]]
}

// NewKeeper returns the x/auction keeper; payee is the module account lease
// payments go to. It panics on an invalid authority or an empty payee
// because that is a wiring bug, caught when the app starts.
func NewKeeper(cdc codec.BinaryCodec, storeService store.KVStoreService, addressCodec address.Codec,
	bank types.BankKeeper, providers types.ProviderKeeper, offers types.OfferKeeper, payee types.LeasePayee, authority string,
) Keeper {
	if _, err := addressCodec.StringToBytes(authority); err != nil {
		panic(fmt.Errorf("invalid %s authority address %q: %w", types.ModuleName, authority, err))
	}
	if payee.Module == "" {
		panic(fmt.Errorf("%s: no module account to pay leases to", types.ModuleName))
	}

	sb := collections.NewSchemaBuilder(storeService)
	k := Keeper{
		cdc:          cdc,
		storeService: storeService,
		addressCodec: addressCodec,
		bank:         bank,
		providers:    providers,
		offers:       offers,
		payee:        payee.Module,
		hooks:        &leaseHooks{},
		vault:        &evmVault{},
		authority:    authority,
		Params:       collections.NewItem(sb, types.ParamsKey, "params", codec.CollValue[types.Params](cdc)),
		Jobs:         collections.NewMap(sb, types.JobsKey, "jobs", collections.Uint64Key, codec.CollValue[types.Job](cdc)),
		JobSeq:       collections.NewSequence(sb, types.JobSeqKey, "job_seq"),
		Bids: collections.NewMap(sb, types.BidsKey, "bids",
			collections.PairKeyCodec(collections.Uint64Key, sdk.AccAddressKey), codec.CollValue[types.Bid](cdc)),
		BidSeq:   collections.NewSequence(sb, types.BidSeqKey, "bid_seq"),
		Leases:   collections.NewMap(sb, types.LeasesKey, "leases", collections.Uint64Key, codec.CollValue[types.Lease](cdc)),
		LeaseSeq: collections.NewSequence(sb, types.LeaseSeqKey, "lease_seq"),
		ClearingQueue: collections.NewKeySet(sb, types.ClearingQueueKey, "clearing_queue",
			collections.PairKeyCodec(collections.Int64Key, collections.Uint64Key)),
		StartQueue: collections.NewKeySet(sb, types.StartQueueKey, "start_queue",
			collections.PairKeyCodec(sdk.TimeKey, collections.Uint64Key)),
		RenterJobs: collections.NewKeySet(sb, types.RenterJobsKey, "renter_jobs",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.Uint64Key)),
		LiveLeases: collections.NewKeySet(sb, types.LiveLeasesKey, "live_leases",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.Uint64Key)),
		ProviderLeases: collections.NewKeySet(sb, types.ProviderLeasesKey, "provider_leases",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.Uint64Key)),
		RenterLeases: collections.NewKeySet(sb, types.RenterLeasesKey, "renter_leases",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.Uint64Key)),
		UsedNonces: collections.NewMap(sb, types.UsedNoncesKey, "used_nonces",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.Uint64Key), collections.Uint64Value),
		NonceExpiry: collections.NewKeySet(sb, types.NonceExpiryKey, "nonce_expiry",
			collections.TripleKeyCodec(collections.Uint64Key, sdk.AccAddressKey, collections.Uint64Key)),
		RetiredJobs: collections.NewKeySet(sb, types.RetiredJobsKey, "retired_jobs",
			collections.PairKeyCodec(sdk.TimeKey, collections.Uint64Key)),
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

type leaseHooks struct{ h types.LeaseHooks }

// SetHooks installs the lease hooks (x/settlement's); once, at wiring.
func (k Keeper) SetHooks(h types.LeaseHooks) {
	if k.hooks.h != nil {
		panic("x/auction lease hooks set twice")
	}
	k.hooks.h = h
}

// The lease hooks are required: without them nobody settles a lease's
// epochs, so a missing hook is a wiring error, not a lease that ends unpaid.
var errNoLeaseHooks = errors.New("x/auction: lease hooks are not set (the app wires x/settlement's)")

func (k Keeper) afterLeaseStarted(ctx context.Context, l types.Lease) error {
	if k.hooks.h == nil {
		return errNoLeaseHooks
	}
	return k.hooks.h.AfterLeaseStarted(ctx, l)
}

func (k Keeper) afterLeaseStopped(ctx context.Context, l types.Lease) error {
	if k.hooks.h == nil {
		return errNoLeaseHooks
	}
	return k.hooks.h.AfterLeaseStopped(ctx, l)
}

func (k Keeper) afterLeaseEnded(ctx context.Context, l types.Lease) error {
	if k.hooks.h == nil {
		return errNoLeaseHooks
	}
	return k.hooks.h.AfterLeaseEnded(ctx, l)
}

func (k Keeper) afterLeasePruned(ctx context.Context, l types.Lease) error {
	if k.hooks.h == nil {
		return errNoLeaseHooks
	}
	return k.hooks.h.AfterLeasePruned(ctx, l)
}
