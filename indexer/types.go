package indexer

import "time"

// Block is an indexed block.
type Block struct {
	Height   int64
	Time     time.Time
	Proposer string
	// Txs counts its transactions; Events the typed events indexed from it.
	Txs, Events int
}

// Job is a posted job and what became of it. Amounts are micro-units of
// Denom (the job's price denom).
type Job struct {
	ID              uint64
	Renter          string
	Models          []string
	Regions         []string
	Tier            string
	Preemptible     bool
	GPUCount        uint32
	DurationSeconds uint64
	Image           string
	Denom           string
	MaxPrice        int64
	Deposit         int64
	// Status is the chain's job status, short and lower-case ("open",
	// "matched", "completed", "expired", "cancelled", ...).
	Status        string
	CreatedHeight int64
	CreatedAt     time.Time
	// ClearingPrice is per GPU-hour; zero until cleared.
	ClearingPrice int64
	LeaseIDs      []uint64
	Candidates    uint32
	ClearedHeight int64
	ClearedAt     time.Time
	EndedHeight   int64
	EndedAt       time.Time
	// Refunded is all escrow returned to the renter (job and lease level).
	Refunded int64
	// Submitter relayed a wallet-signed bid for a RelayerFee (else empty).
	Submitter       string
	RelayerFee      int64
	RelayerFeeDenom string
}

// Lease is a lease from clearing to its end; Model and Region are its offer's.
type Lease struct {
	ID              uint64
	JobID           uint64
	Renter          string
	Provider        string
	OfferID         uint64
	Model           string
	Region          string
	GPUs            int
	GPUUUIDs        []string
	Tier            string
	DurationSeconds uint64
	Denom           string
	// Price is per GPU-hour; Escrow what the lease was allotted; Paid what
	// it paid so far; Refunded what went back to the renter.
	Price, Escrow, Paid, Refunded int64
	// Status is the lease status, short and lower-case ("pending",
	// "active", "closing", "completed", ...); FinalStatus the status a
	// closing lease will take.
	Status        string
	FinalStatus   string
	Reason        string
	Ended         bool
	CreatedHeight int64
	CreatedAt     time.Time
	StartedHeight int64
	StartedAt     time.Time
	// StoppedAt is when a lease ended early stopped its clock.
	StoppedAt   time.Time
	EndedHeight int64
	EndedAt     time.Time
}

// LeaseFilter selects leases; empty fields do not filter.
type LeaseFilter struct {
	Renter   string
	Provider string
	// Ended, when set, keeps only ended (true) or live (false) leases.
	Ended *bool
	// Before, when set, keeps only leases with a smaller id: the cursor of
	// a list paged newest first, stable while new leases are indexed.
	Before        uint64
	Limit, Offset int
}

// Epoch is one settled epoch of a lease.
type Epoch struct {
	LeaseID uint64
	Epoch   uint64
	// Provider served it; Status is "proven", "missed" or "excused".
	Provider string
	Status   string
	Height   int64
	Time     time.Time
	// Paid (fee included) and Fee are set for a proven epoch.
	Denom       string
	Paid, Fee   int64
	SamplesRoot string
	// Reason says why an epoch was excused; MissedInRow counts misses.
	Reason      string
	MissedInRow uint32
	// GPUs are the per-GPU summaries of the accepted proof.
	GPUs []EpochGPU
}

// EpochGPU is one GPU's summary in an accepted proof.
type EpochGPU struct {
	UUID          string
	Samples       uint32
	UtilAvgBps    uint32
	UtilMinBps    uint32
	MemUsedMaxMiB uint64
	EnergyMJ      uint64
	PowerAvgMW    uint32
	TempMaxC      uint32
	SMClockAvgMHz uint32
	XIDErrors     uint32
}

// Clearing is one cleared job's price for one model it leased.
type Clearing struct {
	JobID  uint64
	Model  string
	Height int64
	Time   time.Time
	Denom  string
	// Price is the clearing price per GPU-hour.
	Price int64
	// GPUs of this model were leased for DurationSeconds.
	GPUs            uint32
	DurationSeconds uint64
}

// Model is a GPU model that has cleared at least once.
type Model struct {
	Model       string
	Clearings   int64
	FirstHeight int64
	LastHeight  int64
	LastDenom   string
	LastPrice   int64
}

// Reputation is a provider's reputation after a block that changed it.
type Reputation struct {
	Provider        string
	Height          int64
	Time            time.Time
	ReliabilityBps  uint32
	Proven          uint64
	Missed          uint64
	LeasesCompleted uint64
	LeasesFailed    uint64
	Preemptions     uint64
	Frauds          uint64
}

// Earning is what a provider's proofs paid in one time bucket.
type Earning struct {
	// Start is the bucket's start.
	Start time.Time
	Denom string
	// Paid is out of escrow, Fee to the fee collector, Net = Paid - Fee.
	Paid, Fee, Net int64
	Epochs         int64
}

// Slash is stake taken from a provider, or its jailing or tombstoning.
type Slash struct {
	Height int64
	Time   time.Time
	// Kind is "slashed", "jailed", "tombstoned" or "fraud_proven".
	Kind        string
	Provider    string
	Reason      string
	FractionBps uint32
	Denom       string
	Slashed     int64
	Beneficiary string
	Reward      int64
	Burned      int64
	JailedUntil time.Time
}

// Audit is an audit of one of a provider's GPUs.
type Audit struct {
	ID       uint64
	Provider string
	// Auditor is who requested the audit: the provider for its required
	// audit, a paying account, or empty for the chain's random draw.
	Auditor  string
	GPUUUID  string
	Workload string
	// WorkUnits is the audit's size in table reads (its shape's Reads).
	WorkUnits      uint64
	Deadline       time.Time
	Denom          string
	Fee            int64
	Status         string
	OpenedHeight   int64
	OpenedAt       time.Time
	AnsweredHeight int64
	ResolvedHeight int64
	ResolvedAt     time.Time
	FeePaidTo      string
	Slashed        int64
	LeasesFailed   uint32
}

// Claim is rewards paid to a provider's operator.
type Claim struct {
	Height   int64
	Time     time.Time
	Operator string
	Denom    string
	Amount   int64
}

// MarketStats sums the market since a time.
type MarketStats struct {
	Since       time.Time
	ClearedJobs int64
	// GPUSeconds sold (GPUs × duration of each clearing).
	GPUSeconds int64
	Models     []ModelStats
}

// GPUHours is GPUSeconds in hours.
func (s MarketStats) GPUHours() float64 { return float64(s.GPUSeconds) / 3600 }

// ModelStats is one model's (and denom's) share of MarketStats.
type ModelStats struct {
	Model       string
	Denom       string
	Clearings   int64
	GPUSeconds  int64
	MedianPrice int64
}

// ProviderRecord is a provider's standing as indexed: its latest
// reliability and how its GPUs' audits ended.
type ProviderRecord struct {
	Provider string
	// HasReputation is false before any reputation change was indexed
	// (a new provider at its initial reliability).
	HasReputation  bool
	ReliabilityBps uint32
	Proven         uint64
	// AuditsPassed ended CORRECT; AuditsFailed WRONG, MISSED or BAD_REVEAL.
	AuditsPassed, AuditsFailed int64
}
