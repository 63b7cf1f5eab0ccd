package keeper

// WithoutEvmVault is k on a chain that wired no EVM withdrawal path
// (the shared withdrawer replaced by an empty one, for this copy only).
func (k Keeper) WithoutEvmVault() Keeper {
	k.vault = &evmVault{}
	return k
}
