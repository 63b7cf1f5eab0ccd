package keeper

import (
	"context"
	"math/big"

	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"

	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// domain is the vault's digest domain: vault_id from the bridge's params,
// the EVM chain id and vault address from x/auction's (one vault, named
// once). ok is false until governance (or genesis) names a vault: no valset
// or root is made before, as nothing could be signed for it.
func (k Keeper) domain(ctx context.Context, params types.Params) (payout.Domain, bool, error) {
	chainID, vault, err := k.auction.EVMDomain(ctx)
	if err != nil {
		return payout.Domain{}, false, err
	}
	// x/auction's default names the zero address: no vault yet.
	if vault == "" || chainID == 0 || common.HexToAddress(vault) == (common.Address{}) {
		return payout.Domain{}, false, nil
	}
	addr, err := types.ParseEvmAddress(vault)
	if err != nil {
		return payout.Domain{}, false, errorsmod.Wrapf(types.ErrInvalidParams, "x/auction evm_verifying_contract: %v", err)
	}
	id, err := types.ParseHash32(params.VaultId)
	if err != nil {
		return payout.Domain{}, false, err
	}
	return payout.Domain{VaultID: common.Hash(id), ChainID: new(big.Int).SetUint64(chainID), Vault: addr}, true, nil
}
