package types

import errorsmod "cosmossdk.io/errors"

// x/settlement errors. Codes start at 2 (1 is reserved by the SDK for internal
// errors) and are never renumbered: clients match on codespace and code.
var (
	// ErrInvalidAuthority is returned when a params change is not signed by the module authority.
	ErrInvalidAuthority = errorsmod.Register(ModuleName, 2, "signer is not the module authority")
	// ErrInvalidParams is returned for params that fail validation.
	ErrInvalidParams = errorsmod.Register(ModuleName, 3, "invalid params")
	// ErrInvalidGenesis is returned for a genesis state that fails validation.
	ErrInvalidGenesis = errorsmod.Register(ModuleName, 4, "invalid genesis state")
	// ErrInvalidSample is returned for a sample that fails validation or decoding.
	ErrInvalidSample = errorsmod.Register(ModuleName, 5, "invalid sample")
	// ErrInvalidProof is returned for an execution proof malformed in itself.
	ErrInvalidProof = errorsmod.Register(ModuleName, 6, "invalid execution proof")
	// ErrUnauthorized is returned when the signer may not act for the provider.
	ErrUnauthorized = errorsmod.Register(ModuleName, 7, "signer is not the provider's operator or agent")
	// ErrLeaseNotActive is returned for a proof on a lease that is not ACTIVE.
	ErrLeaseNotActive = errorsmod.Register(ModuleName, 8, "lease is not active")
	// ErrEpochNotEnded is returned for a proof of an epoch still running or in the future.
	ErrEpochNotEnded = errorsmod.Register(ModuleName, 9, "epoch has not ended")
	// ErrEpochProven is returned for a second proof of an epoch.
	ErrEpochProven = errorsmod.Register(ModuleName, 10, "epoch already proven or settled")
	// ErrWrongWindow is returned when a proof's window is not its epoch's.
	ErrWrongWindow = errorsmod.Register(ModuleName, 11, "window does not match the epoch")
	// ErrBadChallenge is returned for a challenge hash that is not the header hash of a block inside the window.
	ErrBadChallenge = errorsmod.Register(ModuleName, 12, "challenge is not a block header inside the window")
	// ErrGPUSetMismatch is returned when a proof's GPUs are not the lease's.
	ErrGPUSetMismatch = errorsmod.Register(ModuleName, 13, "proof GPUs differ from the lease's")
	// ErrTooFewSamples is returned when a GPU has fewer samples than the epoch needs.
	ErrTooFewSamples = errorsmod.Register(ModuleName, 14, "too few samples")
	// ErrImplausible is returned for telemetry the GPU model cannot produce.
	ErrImplausible = errorsmod.Register(ModuleName, 15, "implausible telemetry")
	// ErrInvalidMerkleProof is returned for a Merkle path that does not lead to the root.
	ErrInvalidMerkleProof = errorsmod.Register(ModuleName, 16, "invalid merkle proof")
	// ErrNoRewards is returned by a claim with nothing to pay.
	ErrNoRewards = errorsmod.Register(ModuleName, 17, "no rewards to claim")
	// ErrTooManyProofs is returned for a MsgSubmitProofs above the per-message bound.
	ErrTooManyProofs = errorsmod.Register(ModuleName, 18, "too many proofs in one message")
	// ErrEpochOutOfOrder is returned for a proof of an ended epoch while an earlier one is unsettled.
	ErrEpochOutOfOrder = errorsmod.Register(ModuleName, 19, "an earlier epoch is not settled yet")
	// ErrProofNotFound is returned for a report on a proof not (or no longer) stored.
	ErrProofNotFound = errorsmod.Register(ModuleName, 20, "proof not found")
	// ErrNoContradiction is returned for a report whose sample agrees with the proof.
	ErrNoContradiction = errorsmod.Register(ModuleName, 21, "the sample does not contradict the proof")
	// ErrAlreadyTombstoned is returned for a fraud report on a provider already tombstoned.
	ErrAlreadyTombstoned = errorsmod.Register(ModuleName, 22, "provider already tombstoned")
	// ErrAuditorNotAllowed was returned for an auditor outside the retired
	// auditors param; kept so its code is never reused.
	ErrAuditorNotAllowed = errorsmod.Register(ModuleName, 23, "auditor not allowed")
	// ErrInvalidAudit is returned for a malformed audit message (workload, seed, units, commitment, fee, sizes).
	ErrInvalidAudit = errorsmod.Register(ModuleName, 24, "invalid audit")
	// ErrNotAuditable is returned when the provider or GPU may not be audited now (not active, not its GPU, in a lease).
	ErrNotAuditable = errorsmod.Register(ModuleName, 25, "GPU cannot be audited now")
	// ErrAuditCooldown is returned when the GPU was audited less than audit_cooldown ago.
	ErrAuditCooldown = errorsmod.Register(ModuleName, 26, "GPU audited too recently")
	// ErrAuditPending is returned when the GPU already has a live audit.
	ErrAuditPending = errorsmod.Register(ModuleName, 27, "GPU already has a live audit")
	// ErrAuditDeadline was returned for a requester's deadline out of bounds;
	// the chain now sets deadlines. Kept so its code is never reused.
	ErrAuditDeadline = errorsmod.Register(ModuleName, 28, "audit deadline out of bounds")
	// ErrAuditNotFound is returned for an unknown audit id.
	ErrAuditNotFound = errorsmod.Register(ModuleName, 29, "audit not found")
	// ErrAuditFee is returned for a requested audit whose fee is below
	// audit_request_fee or in a denom it does not list.
	ErrAuditFee = errorsmod.Register(ModuleName, 32, "audit fee too low")
	// ErrAuditState is returned for a message the audit's status or clock does not allow.
	ErrAuditState = errorsmod.Register(ModuleName, 30, "audit does not accept this message now")
	// ErrNoProofs is returned for a MsgSubmitProofs that carries no proof.
	ErrNoProofs = errorsmod.Register(ModuleName, 31, "no proofs to submit: a MsgSubmitProofs needs at least one proof")
	// ErrPaymentMismatch is x/auction paying a proof other than the one
	// payment rule priced it: a broken invariant, and the message fails
	// rather than pay either figure.
	ErrPaymentMismatch = errorsmod.Register(ModuleName, 33, "payment differs from the proof's price")
)
