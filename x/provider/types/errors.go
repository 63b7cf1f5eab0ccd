package types

import errorsmod "cosmossdk.io/errors"

// x/provider errors. Codes start at 2 (1 is reserved by the SDK for internal
// errors) and are never renumbered: clients match on codespace and code.
var (
	// ErrInvalidAuthority is returned when a params change is not signed by the module authority.
	ErrInvalidAuthority = errorsmod.Register(ModuleName, 2, "signer is not the module authority")
	// ErrInvalidParams is returned for params that fail validation.
	ErrInvalidParams = errorsmod.Register(ModuleName, 3, "invalid params")
	// ErrInvalidGenesis is returned for a genesis state that fails validation.
	ErrInvalidGenesis = errorsmod.Register(ModuleName, 4, "invalid genesis state")
	// ErrProviderExists is returned when an operator registers twice.
	ErrProviderExists = errorsmod.Register(ModuleName, 5, "provider already registered")
	// ErrProviderNotFound is returned for an address that is not a provider.
	ErrProviderNotFound = errorsmod.Register(ModuleName, 6, "provider not found")
	// ErrInvalidMoniker is returned for an empty, over-long or unprintable moniker.
	ErrInvalidMoniker = errorsmod.Register(ModuleName, 7, "invalid moniker")
	// ErrInvalidRegion is returned for a region not of the form continent[-country[-site]].
	ErrInvalidRegion = errorsmod.Register(ModuleName, 8, "invalid region")
	// ErrInvalidEndpoint is returned for an endpoint that is not https (or http on loopback).
	ErrInvalidEndpoint = errorsmod.Register(ModuleName, 9, "invalid endpoint")
	// ErrInvalidCertHash is returned for a TLS certificate pin that is not 64 hex digits.
	ErrInvalidCertHash = errorsmod.Register(ModuleName, 10, "invalid tls_cert_sha256")
	// ErrInvalidAgents is returned for too many, duplicate or malformed agents, or the operator among them.
	ErrInvalidAgents = errorsmod.Register(ModuleName, 11, "invalid agents")
	// ErrUnauthorized is returned when the signer may not act for the provider.
	ErrUnauthorized = errorsmod.Register(ModuleName, 12, "signer not authorized for provider")
	// ErrInvalidGPU is returned for a GPU whose inventory fields are malformed.
	ErrInvalidGPU = errorsmod.Register(ModuleName, 13, "invalid gpu")
	// ErrInvalidGPUUUID is returned for a UUID not in NVML's GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx form.
	ErrInvalidGPUUUID = errorsmod.Register(ModuleName, 14, "invalid gpu uuid")
	// ErrDuplicateGPU is returned when one message names a UUID twice.
	ErrDuplicateGPU = errorsmod.Register(ModuleName, 15, "duplicate gpu in message")
	// ErrGPUAlreadyRegistered is returned for a UUID some provider already owns.
	ErrGPUAlreadyRegistered = errorsmod.Register(ModuleName, 16, "gpu already registered")
	// ErrTooManyGPUs is returned when a message or a provider would exceed its GPU limit.
	ErrTooManyGPUs = errorsmod.Register(ModuleName, 17, "too many gpus")
	// ErrGPUNotFound is returned for a UUID no provider owns (or not the named provider).
	ErrGPUNotFound = errorsmod.Register(ModuleName, 18, "gpu not found")
	// ErrGPUCommitted is returned for a GPU that is in an offer or a lease.
	ErrGPUCommitted = errorsmod.Register(ModuleName, 19, "gpu committed to an offer or lease")
	// ErrInvalidStake is returned for a bond or unbond of zero or in the wrong denom.
	ErrInvalidStake = errorsmod.Register(ModuleName, 20, "invalid stake amount")
	// ErrInsufficientStake is returned when stake would not cover the committed GPUs, or an unbond exceeds it.
	ErrInsufficientStake = errorsmod.Register(ModuleName, 21, "insufficient stake")
	// ErrTooManyUnbondings is returned when a provider already has max_unbonding_entries.
	ErrTooManyUnbondings = errorsmod.Register(ModuleName, 22, "too many unbonding entries")
	// ErrTombstoned is returned for anything a tombstoned provider may no longer do.
	ErrTombstoned = errorsmod.Register(ModuleName, 23, "provider is tombstoned")
	// ErrNotJailed is returned for MsgUnjail from a provider that is not jailed.
	ErrNotJailed = errorsmod.Register(ModuleName, 24, "provider is not jailed")
	// ErrStillJailed is returned for MsgUnjail before jailed_until.
	ErrStillJailed = errorsmod.Register(ModuleName, 25, "provider still jailed")
	// ErrInvalidAddress is returned for a malformed bech32 address.
	ErrInvalidAddress = errorsmod.Register(ModuleName, 26, "invalid address")
	// ErrInvalidSlash is returned for a slash with a bad fraction or reason.
	ErrInvalidSlash = errorsmod.Register(ModuleName, 27, "invalid slash")
	// ErrProviderNotActive is returned when a provider that is not ACTIVE would commit GPUs.
	ErrProviderNotActive = errorsmod.Register(ModuleName, 28, "provider not active")
	// ErrInvalidLeaseOutcome is returned for an unknown lease outcome.
	ErrInvalidLeaseOutcome = errorsmod.Register(ModuleName, 29, "invalid lease outcome")
	// ErrGPUNotCommitted is returned when releasing a GPU that is not committed.
	ErrGPUNotCommitted = errorsmod.Register(ModuleName, 30, "gpu not committed")
	// ErrUnknownGPUModel is returned for a GPU whose model the GPU model table does not list.
	ErrUnknownGPUModel = errorsmod.Register(ModuleName, 31, "unknown gpu model")
	// ErrSimulatedGPU is a simulated GPU offered to a chain that is not a
	// development chain (allow_simulated_gpus false).
	ErrSimulatedGPU = errorsmod.Register(ModuleName, 32, "simulated gpu on a real network")
)
