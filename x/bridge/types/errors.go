package types

import errorsmod "cosmossdk.io/errors"

// x/bridge errors. Codes start at 2 (1 is reserved by the SDK for internal
// errors) and are never renumbered: clients match on codespace and code.
var (
	ErrInvalidAuthority   = errorsmod.Register(ModuleName, 2, "signer is not the module authority")
	ErrInvalidParams      = errorsmod.Register(ModuleName, 3, "invalid params")
	ErrInvalidGenesis     = errorsmod.Register(ModuleName, 4, "invalid genesis state")
	ErrInvalidAddress     = errorsmod.Register(ModuleName, 5, "invalid address")
	ErrInvalidEvmAddress  = errorsmod.Register(ModuleName, 6, "invalid EVM address")
	ErrNotValidator       = errorsmod.Register(ModuleName, 7, "not a bonded validator")
	ErrBadProof           = errorsmod.Register(ModuleName, 8, "proof of possession does not verify")
	ErrSignerTaken        = errorsmod.Register(ModuleName, 9, "EVM signer or orchestrator registered by another validator")
	ErrNotOrchestrator    = errorsmod.Register(ModuleName, 10, "account is no registered orchestrator")
	ErrNonceOutOfOrder    = errorsmod.Register(ModuleName, 11, "deposit nonce out of order")
	ErrAlreadyAttested    = errorsmod.Register(ModuleName, 12, "deposit already attested by this validator")
	ErrInvalidClaim       = errorsmod.Register(ModuleName, 13, "invalid deposit claim")
	ErrValsetNotFound     = errorsmod.Register(ModuleName, 14, "valset not found")
	ErrRootNotFound       = errorsmod.Register(ModuleName, 15, "payout root not found")
	ErrNotInValset        = errorsmod.Register(ModuleName, 16, "validator's signer is not in the signing valset")
	ErrBadSignature       = errorsmod.Register(ModuleName, 17, "signature is not the registered signer's")
	ErrAlreadyConfirmed   = errorsmod.Register(ModuleName, 18, "already confirmed by this validator")
	ErrInvalidAmount      = errorsmod.Register(ModuleName, 19, "invalid amount")
	ErrInsufficientFunds  = errorsmod.Register(ModuleName, 20, "insufficient funds")
	ErrAboveBridged       = errorsmod.Register(ModuleName, 21, "withdrawals would exceed what was bridged in")
	ErrTooManyRecipients  = errorsmod.Register(ModuleName, 22, "payout tree is full")
	ErrProofNotFound      = errorsmod.Register(ModuleName, 23, "no leaf for this account in the root")
	ErrInvariantViolation = errorsmod.Register(ModuleName, 24, "bridge invariant violated")
	ErrUnbacked           = errorsmod.Register(ModuleName, 25, "coins without a deposit behind them cannot be withdrawn")
	ErrNoStandingVote     = errorsmod.Register(ModuleName, 26, "no standing vote for this deposit")
	ErrUnknownEvmSigner   = errorsmod.Register(ModuleName, 27, "EVM address was never a validator's signer")
	ErrNotProvable        = errorsmod.Register(ModuleName, 28, "evidence does not prove an equivocation")
	ErrAlreadyPunished    = errorsmod.Register(ModuleName, 29, "equivocation already punished")
)
