package keeper

import "context"

// EVMDomain returns the EVM chain id and the vault's address (the EIP-712
// domain of wallet-signed messages). x/bridge signs for the same vault, so
// the two are named once, here.
func (k Keeper) EVMDomain(ctx context.Context) (chainID uint64, vault string, err error) {
	p, err := k.Params.Get(ctx)
	if err != nil {
		return 0, "", err
	}
	return p.EvmChainId, p.EvmVerifyingContract, nil
}
