package types

import errorsmod "cosmossdk.io/errors"

// DefaultGenesis returns the genesis state of a new chain.
func DefaultGenesis() *GenesisState {
	return &GenesisState{Params: DefaultParams()}
}

// Validate checks the genesis state without touching the store.
func (gs GenesisState) Validate() error {
	if err := gs.Params.Validate(); err != nil {
		return errorsmod.Wrap(ErrInvalidGenesis, err.Error())
	}
	return nil
}
