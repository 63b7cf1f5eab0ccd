package types

import "cosmossdk.io/collections"

const (
	// ModuleName is the module's name, store key and module account.
	ModuleName = "bridge"

	// StoreKey is the KV store key of the module.
	StoreKey = ModuleName
)

// Store prefixes. Never reuse or renumber one: the bytes are in every node's
// database.
var (
	ParamsKey        = collections.NewPrefix(0)  // Params
	TotalsKey        = collections.NewPrefix(1)  // Totals
	ProgressKey      = collections.NewPrefix(2)  // Progress
	SignersKey       = collections.NewPrefix(3)  // validator → EvmSigner
	OrchestratorsKey = collections.NewPrefix(4)  // orchestrator account → validator
	EvmSignersKey    = collections.NewPrefix(5)  // EVM address → validator
	ValsetsKey       = collections.NewPrefix(6)  // nonce → Valset
	ValsetConfirmKey = collections.NewPrefix(7)  // (nonce, validator) → Confirm
	VotesKey         = collections.NewPrefix(8)  // (deposit nonce, validator) → DepositClaim
	LastAttestedKey  = collections.NewPrefix(9)  // validator → last deposit nonce it attested
	DepositsKey      = collections.NewPrefix(10) // nonce → Deposit
	ConflictsKey     = collections.NewPrefix(11) // (nonce, validator) → Conflict
	CumulativeKey    = collections.NewPrefix(12) // EVM address → cumulative withdrawn
	RootsKey         = collections.NewPrefix(13) // epoch → PayoutRoot
	RootConfirmKey   = collections.NewPrefix(14) // (epoch, validator) → Confirm
	LeavesKey        = collections.NewPrefix(15) // (epoch, EVM address) → cumulative in that root
	MissesKey        = collections.NewPrefix(16) // validator → MissRecord
	DueKey           = collections.NewPrefix(17) // (height, kind, id): checks for misses
	UnbackedKey      = collections.NewPrefix(18) // account → its balance of denom with no deposit behind it
	SignerKeysKey    = collections.NewPrefix(19) // EVM address → validator, every key ever registered
	EquivocationsKey = collections.NewPrefix(20) // (validator, kind, id) → Equivocation
	VoteHistoryKey   = collections.NewPrefix(21) // (nonce, validator, EVM block hash) → every claim it placed
)

// Kinds of missed-duty checks (the due queue's middle key).
const (
	DueDeposit uint32 = 1
	DueValset  uint32 = 2
	DueRoot    uint32 = 3
)

// DueKindName names a due kind in events.
func DueKindName(kind uint32) string {
	switch kind {
	case DueDeposit:
		return "deposit"
	case DueValset:
		return "valset"
	case DueRoot:
		return "root"
	}
	return "unknown"
}

// Kinds of equivocation (the middle key of Equivocations).
const (
	EquivocationDeposit uint32 = 1
	EquivocationRoot    uint32 = 2
	EquivocationValset  uint32 = 3
)
