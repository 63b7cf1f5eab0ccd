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
)
