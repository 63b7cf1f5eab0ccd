package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// EVMDomain returns the EIP-712 domain of wallet-signed messages: the EVM
// chain id and address of x/bridge's vault, named once, in x/bridge's
// params.
func (k Keeper) EVMDomain(ctx context.Context) (types.EIP712Domain, error) {
	v := k.vault.w
	if v == nil {
		return types.EIP712Domain{}, errorsmod.Wrap(types.ErrNoWithdrawer, "this chain wires no EVM vault, so no wallet signature can be checked")
	}
	chainID, vault, err := v.EVMDomain(ctx)
	if err != nil {
		return types.EIP712Domain{}, err
	}
	addr, err := types.ParseEVMAddress(vault)
	if err != nil {
		return types.EIP712Domain{}, err
	}
	return types.EIP712Domain{ChainID: chainID, VerifyingContract: addr}, nil
}
