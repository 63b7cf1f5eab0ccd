package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// RegisterEvmSigner binds a validator's EVM signer and orchestrator after
// checking the EVM key's proof of possession (types.SignerProofDigest). A
// validator may replace its own registration; a key or orchestrator account
// held by another validator is refused, so no signature counts twice, and
// so is a key another validator ever held (SignerKeys).
func (m msgServer) RegisterEvmSigner(ctx context.Context, msg *types.MsgRegisterEvmSigner) (*types.MsgRegisterEvmSignerResponse, error) {
	op, err := m.addressCodec.StringToBytes(msg.Operator)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "operator: %v", err)
	}
	orch, err := m.addressCodec.StringToBytes(msg.Orchestrator)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "orchestrator: %v", err)
	}
	evm, err := types.ParseEvmAddress(msg.EvmAddress)
	if err != nil {
		return nil, err
	}
	val := sdk.ValAddress(op)
	if _, err := m.staking.GetValidator(ctx, val); err != nil {
		return nil, errorsmod.Wrapf(types.ErrNotValidator, "%s is no validator operator", msg.Operator)
	}
	valStr, err := m.valCodec.BytesToString(val)
	if err != nil {
		return nil, err
	}
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	digest := types.SignerProofDigest(sdkCtx.ChainID(), valStr, msg.Orchestrator, evm)
	got, err := types.RecoverSigner(digest, msg.Proof)
	if err != nil || got != evm {
		return nil, errorsmod.Wrapf(types.ErrBadProof, "the proof is not %s's signature over this registration", evm.Hex())
	}
	if owner, err := m.EvmSigners.Get(ctx, evm.Bytes()); err == nil && !owner.Equals(val) {
		return nil, errorsmod.Wrapf(types.ErrSignerTaken, "EVM signer %s", evm.Hex())
	} else if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return nil, err
	}
	// A key once another validator's stays its: a signature by it is
	// evidence against that validator (equivocation.go).
	if k, err := m.SignerKeys.Get(ctx, evm.Bytes()); err == nil && k.Validator != valStr {
		return nil, errorsmod.Wrapf(types.ErrSignerTaken, "EVM signer %s was %s's", evm.Hex(), k.Validator)
	} else if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return nil, err
	}
	if owner, err := m.Orchestrators.Get(ctx, orch); err == nil && !owner.Equals(val) {
		return nil, errorsmod.Wrapf(types.ErrSignerTaken, "orchestrator %s", msg.Orchestrator)
	} else if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return nil, err
	}

	// Drop the old registration's indexes, then write the new one.
	if old, err := m.Signers.Get(ctx, val); err == nil {
		// Stored checksummed by this handler or InitGenesis.
		if err := m.EvmSigners.Remove(ctx, common.HexToAddress(old.EvmAddress).Bytes()); err != nil {
			return nil, err
		}
		oldOrch, err := m.addressCodec.StringToBytes(old.Orchestrator)
		if err != nil {
			return nil, err
		}
		if err := m.Orchestrators.Remove(ctx, oldOrch); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, collections.ErrNotFound) {
		return nil, err
	}
	signer := types.EvmSigner{Validator: valStr, Orchestrator: msg.Orchestrator, EvmAddress: evm.Hex(), Height: sdkCtx.BlockHeight()}
	if err := m.Signers.Set(ctx, val, signer); err != nil {
		return nil, err
	}
	if err := m.EvmSigners.Set(ctx, evm.Bytes(), val); err != nil {
		return nil, err
	}
	if err := m.recordSignerKey(ctx, signer); err != nil {
		return nil, err
	}
	if err := m.Orchestrators.Set(ctx, orch, val); err != nil {
		return nil, err
	}
	return &types.MsgRegisterEvmSignerResponse{}, sdkCtx.EventManager().EmitTypedEvent(&types.EventSignerRegistered{Signer: signer})
}

// recordSignerKey keeps the first registration of an EVM key for good:
// replacing a key does not free the validator from what the old one signed.
func (k Keeper) recordSignerKey(ctx context.Context, s types.EvmSigner) error {
	evm := common.HexToAddress(s.EvmAddress).Bytes()
	has, err := k.SignerKeys.Has(ctx, evm)
	if err != nil || has {
		return err
	}
	return k.SignerKeys.Set(ctx, evm, types.SignerKey{EvmAddress: s.EvmAddress, Validator: s.Validator, Height: s.Height})
}
