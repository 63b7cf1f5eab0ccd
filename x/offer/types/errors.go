package types

import errorsmod "cosmossdk.io/errors"

// x/offer errors. Codes start at 2 (1 is reserved by the SDK for internal
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
	// ErrUnauthorized is returned when the signer may not act for the offer's provider.
	ErrUnauthorized = errorsmod.Register(ModuleName, 6, "signer not authorized for provider")
	// ErrOfferNotFound is returned for an offer id not in state.
	ErrOfferNotFound = errorsmod.Register(ModuleName, 7, "offer not found")
	// ErrInvalidPrice is returned for a missing, zero or negative price, or one set for a lane not offered.
	ErrInvalidPrice = errorsmod.Register(ModuleName, 8, "invalid price")
	// ErrDenomNotAccepted is returned for a price in a denom not in payment_denoms.
	ErrDenomNotAccepted = errorsmod.Register(ModuleName, 9, "denom not accepted")
	// ErrNoGPUs is returned for an offer without GPUs.
	ErrNoGPUs = errorsmod.Register(ModuleName, 10, "offer has no gpus")
	// ErrTooManyGPUs is returned for an offer over max_gpus_per_offer.
	ErrTooManyGPUs = errorsmod.Register(ModuleName, 11, "too many gpus in offer")
	// ErrGPUNotOwned is returned for a GPU that is not the provider's (or not registered).
	ErrGPUNotOwned = errorsmod.Register(ModuleName, 12, "gpu not owned by provider")
	// ErrGPUInOffer is returned for a GPU already in another offer.
	ErrGPUInOffer = errorsmod.Register(ModuleName, 13, "gpu already in an offer")
	// ErrMixedModels is returned when an offer's GPUs are not all one model.
	ErrMixedModels = errorsmod.Register(ModuleName, 14, "gpus of mixed models")
	// ErrDuplicateGPU is returned when a message names a GPU twice.
	ErrDuplicateGPU = errorsmod.Register(ModuleName, 15, "duplicate gpu")
	// ErrInvalidWindows is returned for windows that are unsorted, overlapping, empty, too many or all past.
	ErrInvalidWindows = errorsmod.Register(ModuleName, 16, "invalid availability windows")
	// ErrInvalidLanes is returned for an empty lanes mask or unknown lane bits.
	ErrInvalidLanes = errorsmod.Register(ModuleName, 17, "invalid lanes")
	// ErrInvalidWorkloads is returned for an empty workloads mask or unknown workload bits.
	ErrInvalidWorkloads = errorsmod.Register(ModuleName, 18, "invalid workloads")
	// ErrInvalidImageAllowlist is returned for an allowlist entry that is not a sha256 hex digest prefix.
	ErrInvalidImageAllowlist = errorsmod.Register(ModuleName, 19, "invalid image allowlist")
	// ErrTooManyOffers is returned when a provider would exceed max_offers_per_provider.
	ErrTooManyOffers = errorsmod.Register(ModuleName, 20, "too many offers")
	// ErrInvalidRegion is returned for a region not of the form continent[-country[-site]].
	ErrInvalidRegion = errorsmod.Register(ModuleName, 21, "invalid region")
	// ErrInvalidDuration is returned for a max duration beyond the allowed range.
	ErrInvalidDuration = errorsmod.Register(ModuleName, 22, "invalid duration")
	// ErrInvalidStatus is returned for a status change that is not allowed.
	ErrInvalidStatus = errorsmod.Register(ModuleName, 23, "invalid offer status")
	// ErrOfferClosed is returned for a change to a closed offer.
	ErrOfferClosed = errorsmod.Register(ModuleName, 24, "offer closed")
	// ErrOfferNotOpen is returned when GPUs of an offer that is not OPEN would be leased.
	ErrOfferNotOpen = errorsmod.Register(ModuleName, 25, "offer not open")
	// ErrGPUNotInOffer is returned for a GPU that is not one of the offer's.
	ErrGPUNotInOffer = errorsmod.Register(ModuleName, 26, "gpu not in offer")
	// ErrGPUOccupied is returned when occupying a GPU that a lease or an
	// audit already holds.
	ErrGPUOccupied = errorsmod.Register(ModuleName, 27, "gpu already occupied by a lease or an audit")
	// ErrGPUNotOccupied is returned when vacating a GPU that is free.
	ErrGPUNotOccupied = errorsmod.Register(ModuleName, 28, "gpu not occupied")
	// ErrInvalidQuery is returned for a candidate walk or search with malformed filters.
	ErrInvalidQuery = errorsmod.Register(ModuleName, 29, "invalid market query")
	// ErrGPUHeld is returned when offering a GPU held out of the market
	// (under audit until its verdict).
	ErrGPUHeld = errorsmod.Register(ModuleName, 30, "gpu held out of the market")
	// ErrInvalidImagePrefixes is returned for an image prefix list that is too long, repeats or holds a malformed entry.
	ErrInvalidImagePrefixes = errorsmod.Register(ModuleName, 31, "invalid image prefixes")
	// ErrInvalidResources is returned for CPU, memory, disk or egress per GPU beyond the bounds.
	ErrInvalidResources = errorsmod.Register(ModuleName, 32, "invalid resources per gpu")
	// ErrInvalidIngress is returned for an ingress domain that is not a DNS
	// name, or a certificate pin without a domain.
	ErrInvalidIngress = errorsmod.Register(ModuleName, 33, "invalid ingress")
)
