package types

import "cosmossdk.io/collections"

const (
	// ModuleName is the module's name and store key.
	ModuleName = "settlement"

	// StoreKey is the KV store key of the module.
	StoreKey = ModuleName
)

// Store prefixes. Never reuse or renumber one: the bytes are in every node's
// database.
var (
	// ParamsKey holds the module Params (Item).
	ParamsKey = collections.NewPrefix(0)
	// HeadersKey holds the recent header ring: height → HeaderRecord.
	HeadersKey = collections.NewPrefix(1)
	// ProgressKey holds lease id → LeaseProgress.
	ProgressKey = collections.NewPrefix(2)
	// ProofsKey holds (lease id, epoch) → ProofRecord.
	ProofsKey = collections.NewPrefix(3)
	// RewardsKey holds (provider, denom) → unclaimed amount.
	RewardsKey = collections.NewPrefix(4)
	// DueKey holds (next_due, lease id) of live leases: the liveness index.
	DueKey = collections.NewPrefix(5)
	// PruneKey holds (prune_at, lease id, epoch) of stored proofs.
	PruneKey = collections.NewPrefix(6)
	// AuditsKey holds audit id → Audit.
	AuditsKey = collections.NewPrefix(7)
	// AuditSeqKey holds the next audit id.
	AuditSeqKey = collections.NewPrefix(8)
	// AuditQueueKey holds (time, audit id): the deadline of an OPEN audit,
	// the reveal_by of an ANSWERED one, the pruning time of a resolved one.
	AuditQueueKey = collections.NewPrefix(9)
	// LiveAuditKey held provider → its live commit-reveal audit; retired
	// (emptied by the memwalk upgrade). Never reuse.
	LiveAuditKey = collections.NewPrefix(10)
	// CooldownKey holds GPU UUID → opening time of its latest audit.
	CooldownKey = collections.NewPrefix(11)
	// WindowsKey holds (window start, lease id) of each watched lease's next
	// unsettled epoch: headers from the oldest one on stay as challenges.
	WindowsKey = collections.NewPrefix(12)
	// GapsKey held gap end → Gap, the chain halts deadlines moved by;
	// retired (lost time in the header ring replaced it). Never reuse.
	GapsKey = collections.NewPrefix(13)
	// HeldKey held the UUIDs of GPUs under a commit-reveal audit; retired
	// (moved to HoldsKey by the memwalk upgrade). Never reuse.
	HeldKey = collections.NewPrefix(14)
	// LiveAuditByGPUKey holds GPU UUID → its live audit's id.
	LiveAuditByGPUKey = collections.NewPrefix(15)
	// VerificationsKey holds GPU UUID → GPUVerification.
	VerificationsKey = collections.NewPrefix(16)
	// ExpiryKey holds (verified_until, GPU UUID) of every verified GPU: when
	// its pass stops counting and it is held out of the market.
	ExpiryKey = collections.NewPrefix(17)
	// HoldsKey holds GPU UUID → the offer a hold occupies it in (0: none):
	// GPUs under audit or unverified, out of the market.
	HoldsKey = collections.NewPrefix(18)
	// LostTimeKey holds the chain's lost time in ms: the sum over blocks of
	// each gap beyond expected_block_millis. Audit deadlines move by it.
	LostTimeKey = collections.NewPrefix(19)
	// AwaitingEntropyKey holds (answered height, audit id) of audits whose
	// samples the next block's hash draws.
	AwaitingEntropyKey = collections.NewPrefix(20)
	// FeeRemaindersKey holds (provider, denom) → the fee fraction carried.
	FeeRemaindersKey = collections.NewPrefix(21)
)

// MaxProofsPerMsg bounds the proofs one MsgSubmitProofs carries.
const MaxProofsPerMsg = 256
