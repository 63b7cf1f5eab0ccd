package types

import "cosmossdk.io/collections"

const (
	// ModuleName is the module's name and store key.
	ModuleName = "auction"

	// StoreKey is the KV store key of the module.
	StoreKey = ModuleName
)

// EscrowAccount is the module account holding renters' deposits.
const EscrowAccount = "auction_escrow"

// Store prefixes. Never reuse or renumber one: the bytes are in every node's
// database.
var (
	// ParamsKey holds the module Params (Item).
	ParamsKey = collections.NewPrefix(0)
	// JobsKey maps job id → Job.
	JobsKey = collections.NewPrefix(1)
	// JobSeqKey is the next job id (Sequence).
	JobSeqKey = collections.NewPrefix(2)
	// BidsKey maps (job id, provider) → Bid: one bid per provider per job.
	BidsKey = collections.NewPrefix(3)
	// BidSeqKey orders bids (Sequence).
	BidSeqKey = collections.NewPrefix(4)
	// LeasesKey maps lease id → Lease.
	LeasesKey = collections.NewPrefix(5)
	// LeaseSeqKey is the next lease id (Sequence).
	LeaseSeqKey = collections.NewPrefix(6)
	// ClearingQueueKey is the set of (bid deadline height, job id) of OPEN jobs.
	ClearingQueueKey = collections.NewPrefix(7)
	// StartQueueKey is the set of (start deadline, lease id) of PENDING leases.
	StartQueueKey = collections.NewPrefix(8)
	// RenterJobsKey is the set of (renter, job id).
	RenterJobsKey = collections.NewPrefix(9)
	// ProviderLeasesKey is the set of (provider, lease id).
	ProviderLeasesKey = collections.NewPrefix(10)
	// RenterLeasesKey is the set of (renter, lease id).
	RenterLeasesKey = collections.NewPrefix(11)
	// LiveLeasesKey is the set of (provider, lease id) of PENDING and ACTIVE
	// leases: what a fraud verdict must end, bounded by the provider's GPUs.
	LiveLeasesKey = collections.NewPrefix(12)
	// UsedNoncesKey maps (signer, nonce) → deadline (unix seconds) of wallet
	// signers' nonces still within their deadline.
	UsedNoncesKey = collections.NewPrefix(13)
	// NonceExpiryKey is the set of (deadline, signer, nonce): when each used
	// nonce may be dropped.
	NonceExpiryKey = collections.NewPrefix(14)
	// RetiredJobsKey is the set of (prune_at, job id) of jobs that ended for
	// good: when each job and its leases may be pruned.
	RetiredJobsKey = collections.NewPrefix(15)
)
