package keeper

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// Migrator runs x/auction's store migrations.
type Migrator struct{ k Keeper }

// NewMigrator returns the module's migrator.
func NewMigrator(k Keeper) Migrator { return Migrator{k: k} }

// Version-1 params fields that named the EIP-712 domain, now x/bridge's
// evm_chain_id and vault_address (proto: reserved 11, 12).
const (
	v1EvmChainIDField           protowire.Number = 11
	v1EvmVerifyingContractField protowire.Number = 12
)

// Migrate1to2 hands the EIP-712 domain of wallet-signed messages to
// x/bridge, whose vault it is (README.md, "Wallet-signed messages"): the
// version-1 params' evm_chain_id and evm_verifying_contract are read from
// the stored bytes (the type no longer has them), given to the vault
// (SetEVMDomain), and the params are stored again without them. Signatures
// made before the upgrade stay valid: the domain's values do not change.
func (m Migrator) Migrate1to2(ctx sdk.Context) error {
	k := m.k
	if k.vault.w == nil {
		return fmt.Errorf("x/auction 1→2: no EVM vault wired to hand the EIP-712 domain to")
	}
	raw, err := k.storeService.OpenKVStore(ctx).Get(types.ParamsKey.Bytes())
	if err != nil {
		return err
	}
	chainID, contract, err := v1Domain(raw)
	if err != nil {
		return fmt.Errorf("x/auction 1→2: %w", err)
	}
	if err := k.vault.w.SetEVMDomain(ctx, chainID, contract); err != nil {
		return fmt.Errorf("x/auction 1→2: hand the domain (%d, %s) to x/bridge: %w", chainID, contract, err)
	}
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if err := params.Validate(); err != nil {
		return err
	}
	return k.Params.Set(ctx, params)
}

// v1Domain reads fields 11 (uint64) and 12 (string) of version-1 params.
func v1Domain(b []byte) (chainID uint64, contract string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", fmt.Errorf("params: %w", protowire.ParseError(n))
		}
		b = b[n:]
		switch {
		case num == v1EvmChainIDField && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, "", fmt.Errorf("params field %d: %w", num, protowire.ParseError(n))
			}
			chainID, b = v, b[n:]
		case num == v1EvmVerifyingContractField && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, "", fmt.Errorf("params field %d: %w", num, protowire.ParseError(n))
			}
			contract, b = string(v), b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return 0, "", fmt.Errorf("params field %d: %w", num, protowire.ParseError(n))
			}
			b = b[n:]
		}
	}
	if chainID == 0 || contract == "" {
		return 0, "", fmt.Errorf("version-1 params name no EIP-712 domain (evm_chain_id %d, evm_verifying_contract %q)", chainID, contract)
	}
	return chainID, contract, nil
}
