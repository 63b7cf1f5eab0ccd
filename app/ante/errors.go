package ante

import errorsmod "cosmossdk.io/errors"

// Codespace is the codespace of this package's errors.
const Codespace = "ante"

// Errors of the chain's ante decorators. Codes start at 2 (1 is reserved by
// the SDK for internal errors) and are never renumbered.
var (
	// ErrNonCanonicalNumber is returned for a tx whose signed bytes spell an
	// amount in a form other than the one the chain prints for it.
	ErrNonCanonicalNumber = errorsmod.Register(Codespace, 2, "non-canonical number")
)
