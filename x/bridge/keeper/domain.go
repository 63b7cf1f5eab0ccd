package keeper

import (
	"context"
	"math/big"

	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"

	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// domain is the vault's digest domain: vault_id, evm_chain_id and
// vault_address from the params (the vault named once). ok is false until
// governance (or genesis) names a vault: no valset or root is made before,
// as nothing could be signed for it.
func (k Keeper) domain(_ context.Context, params types.Params) (payout.Domain, bool, error) {
	vault, err := params.Vault()
	if err != nil {
		return payout.Domain{}, false, errorsmod.Wrapf(types.ErrInvalidParams, "vault_address: %v", err)
	}
	if vault == (common.Address{}) {
		return payout.Domain{}, false, nil
	}
	id, err := types.ParseHash32(params.VaultId)
	if err != nil {
		return payout.Domain{}, false, err
	}
	return payout.Domain{VaultID: common.Hash(id), ChainID: new(big.Int).SetUint64(params.EvmChainId), Vault: vault}, true, nil
}

// EVMDomain is the vault's EVM chain id and address: the EIP-712 domain of
// x/auction's wallet-signed messages (its types.EvmVault).
func (k Keeper) EVMDomain(ctx context.Context) (chainID uint64, vault string, err error) {
	p, err := k.Params.Get(ctx)
	if err != nil {
		return 0, "", err
	}
	return p.EvmChainId, p.VaultAddress, nil
}

// SetEVMDomain names the vault's chain and address (ValidateDomain).
// x/auction's version 1 → 2 migration calls it once, handing over the
// domain its params held; the rest of the params may still be version 2
// then (Migrate2to3 completes them, before or after).
func (k Keeper) SetEVMDomain(ctx context.Context, chainID uint64, vault string) error {
	if err := types.ValidateDomain(chainID, vault); err != nil {
		return err
	}
	p, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	p.EvmChainId, p.VaultAddress = chainID, vault
	return k.Params.Set(ctx, p)
}
