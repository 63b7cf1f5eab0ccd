package types

import errorsmod "cosmossdk.io/errors"

// x/auction errors. Codes start at 2 (1 is reserved by the SDK for internal
// errors) and are never renumbered: clients match on codespace and code.
var (
	// ErrInvalidAuthority is returned when a params change is not signed by the module authority.
	ErrInvalidAuthority = errorsmod.Register(ModuleName, 2, "signer is not the module authority")
	// ErrInvalidParams is returned for params that fail validation.
	ErrInvalidParams = errorsmod.Register(ModuleName, 3, "invalid params")
	// ErrInvalidGenesis is returned for a genesis state that fails validation.
	ErrInvalidGenesis = errorsmod.Register(ModuleName, 4, "invalid genesis state")
	// ErrInvalidAddress is returned for a malformed bech32 address.
	ErrInvalidAddress = errorsmod.Register(ModuleName, 5, "invalid address")
	// ErrInvalidGPUCount is returned for zero GPUs or more than max_gpus_per_job (or than a bid may offer).
	ErrInvalidGPUCount = errorsmod.Register(ModuleName, 6, "invalid gpu count")
	// ErrInvalidDuration is returned for a duration of 0 or above max_job_duration.
	ErrInvalidDuration = errorsmod.Register(ModuleName, 7, "invalid duration")
	// ErrInvalidPrice is returned for a zero, negative or oversized price.
	ErrInvalidPrice = errorsmod.Register(ModuleName, 8, "invalid price")
	// ErrDenomNotAccepted is returned for a price in a denom the market does not take.
	ErrDenomNotAccepted = errorsmod.Register(ModuleName, 9, "denom not accepted")
	// ErrInvalidTier is returned for an unknown tier, or preemptible not matching BRONZE.
	ErrInvalidTier = errorsmod.Register(ModuleName, 10, "invalid tier")
	// ErrInvalidImage is returned for an image without a sha256 digest, or
	// whose reference pins a digest other than image_digest.
	ErrInvalidImage = errorsmod.Register(ModuleName, 11, "invalid image")
	// ErrInvalidManifestHash is returned for a manifest hash that is not 64 hex digits.
	ErrInvalidManifestHash = errorsmod.Register(ModuleName, 12, "invalid manifest hash")
	// ErrInvalidModels is returned for empty, repeated, over-long or too many models.
	ErrInvalidModels = errorsmod.Register(ModuleName, 13, "invalid models")
	// ErrInvalidRegions is returned for malformed or too many regions.
	ErrInvalidRegions = errorsmod.Register(ModuleName, 14, "invalid regions")
	// ErrInvalidWorkload is returned for a workload that is not exactly one known kind.
	ErrInvalidWorkload = errorsmod.Register(ModuleName, 15, "invalid workload")
	// ErrInvalidBidWindow is returned for a bid window above the limit.
	ErrInvalidBidWindow = errorsmod.Register(ModuleName, 16, "invalid bid window")
	// ErrJobNotFound is returned for an unknown job id.
	ErrJobNotFound = errorsmod.Register(ModuleName, 17, "job not found")
	// ErrJobNotOpen is returned for a bid or cancel on a job that no longer takes them.
	ErrJobNotOpen = errorsmod.Register(ModuleName, 18, "job not open")
	// ErrUnauthorized is returned when the signer may not act on the job, bid or lease.
	ErrUnauthorized = errorsmod.Register(ModuleName, 19, "unauthorized")
	// ErrBidTooHigh is returned for a bid above the job's max price.
	ErrBidTooHigh = errorsmod.Register(ModuleName, 20, "bid above max price")
	// ErrBidBelowFloor is returned for a bid below the offer's price on the job's lane.
	ErrBidBelowFloor = errorsmod.Register(ModuleName, 21, "bid below offer floor")
	// ErrTooManyBids is returned when a job already has max_bids_per_job bids.
	ErrTooManyBids = errorsmod.Register(ModuleName, 22, "too many bids")
	// ErrBidNotFound is returned when withdrawing a bid that does not exist.
	ErrBidNotFound = errorsmod.Register(ModuleName, 23, "bid not found")
	// ErrOfferUnfit is returned for a bid whose offer cannot serve the job.
	ErrOfferUnfit = errorsmod.Register(ModuleName, 24, "offer cannot serve the job")
	// ErrBidDeadlinePassed is returned for a bid after the job's deadline.
	ErrBidDeadlinePassed = errorsmod.Register(ModuleName, 25, "bid deadline passed")
	// ErrLeaseNotFound is returned for an unknown lease id.
	ErrLeaseNotFound = errorsmod.Register(ModuleName, 26, "lease not found")
	// ErrInvalidLeaseState is returned for a lease transition its status does not allow.
	ErrInvalidLeaseState = errorsmod.Register(ModuleName, 27, "invalid lease state")
	// ErrNotPreemptible is returned for preempting a lease that is not BRONZE.
	ErrNotPreemptible = errorsmod.Register(ModuleName, 28, "lease not preemptible")
	// ErrInsufficientFunds is returned when the renter cannot pay the deposit.
	ErrInsufficientFunds = errorsmod.Register(ModuleName, 29, "insufficient funds for deposit")
	// ErrInvalidReason is returned for an over-long or unprintable reason.
	ErrInvalidReason = errorsmod.Register(ModuleName, 30, "invalid reason")
	// ErrProviderNotEligible is returned for a bid from a provider that is not ACTIVE or reliable enough for the tier.
	ErrProviderNotEligible = errorsmod.Register(ModuleName, 31, "provider not eligible")
	// ErrInvalidResources is returned for minimum CPU, memory, disk or egress per GPU beyond what any offer may give.
	ErrInvalidResources = errorsmod.Register(ModuleName, 32, "invalid resources per gpu")
	// ErrInvalidSignedMsg is returned for a wallet-signed message that is
	// malformed (a renter that is not a 20-byte address, a bad number).
	ErrInvalidSignedMsg = errorsmod.Register(ModuleName, 33, "invalid signed message")
	// ErrWrongChainID is returned for a message signed for another Cosmos chain.
	ErrWrongChainID = errorsmod.Register(ModuleName, 34, "signed for another chain")
	// ErrWrongDomain is returned for a message signed under another EIP-712
	// domain (EVM chain id or verifying contract).
	ErrWrongDomain = errorsmod.Register(ModuleName, 35, "signed under another EIP-712 domain")
	// ErrSignedMsgExpired is returned when the block time is past the deadline.
	ErrSignedMsgExpired = errorsmod.Register(ModuleName, 36, "signed message past its deadline")
	// ErrDeadlineTooFar is returned for a deadline beyond max_signed_deadline_seconds.
	ErrDeadlineTooFar = errorsmod.Register(ModuleName, 37, "signed message deadline too far ahead")
	// ErrNonceUsed is returned for a nonce the signer used in a message
	// still within its deadline.
	ErrNonceUsed = errorsmod.Register(ModuleName, 38, "nonce already used")
	// ErrBadSignature is returned for a signature that is not 65 bytes, has
	// a bad v, a high s or recovers no key.
	ErrBadSignature = errorsmod.Register(ModuleName, 39, "bad wallet signature")
	// ErrSignerMismatch is returned when the signature recovers an address
	// other than the renter's.
	ErrSignerMismatch = errorsmod.Register(ModuleName, 40, "signature is not the renter's")
	// ErrRelayerFeeTooHigh is returned when the submitter asks more than the
	// signer allowed.
	ErrRelayerFeeTooHigh = errorsmod.Register(ModuleName, 41, "relayer fee above the signed maximum")
	// ErrNoWithdrawer is returned for a signed withdrawal on a chain whose
	// app wired no EVM withdrawal path (x/bridge) into the auction.
	ErrNoWithdrawer = errorsmod.Register(ModuleName, 42, "no EVM withdrawal path wired")
	// ErrInvalidIngressPort is returned for a service port past TCP's range.
	ErrInvalidIngressPort = errorsmod.Register(ModuleName, 43, "invalid ingress port")
)
