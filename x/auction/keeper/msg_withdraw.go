package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

type evmVault struct{ w types.EvmVault }

// SetEvmVault installs x/bridge's vault: the withdrawal path signed
// withdrawals call and the EIP-712 domain of every wallet-signed message;
// once, at wiring. Without it wallet-signed messages are refused
// (ErrNoWithdrawer).
func (k Keeper) SetEvmVault(w types.EvmVault) {
	if k.vault.w != nil {
		panic("x/auction EVM vault set twice")
	}
	k.vault.w = w
}

// SubmitSignedWithdraw withdraws a wallet account's coins to its own EVM
// address for its wallet signature: relaySigned's checks (the account must
// hold the amount as well as the fee), then x/bridge's Withdraw of amount
// to the signer's address (the account's 20 bytes, so no relayer can
// choose another recipient), then the submitter's fee. Everything runs in
// a cache context written only on success: a refusal at any step, the
// bridge's included, moves nothing and pays no fee.
func (m msgServer) SubmitSignedWithdraw(ctx context.Context, msg *types.MsgSubmitSignedWithdraw) (*types.MsgSubmitSignedWithdrawResponse, error) {
	w := m.vault.w
	if w == nil {
		return nil, errorsmod.Wrap(types.ErrNoWithdrawer, "this chain takes no signed withdrawals")
	}
	a := msg.Auth
	renter, err := m.address("renter", a.Renter)
	if err != nil {
		return nil, err
	}
	structHash, err := types.WithdrawHash(a, renter)
	if err != nil {
		return nil, err
	}
	if err := a.Amount.Validate(); err != nil || !a.Amount.IsPositive() {
		return nil, errorsmod.Wrapf(types.ErrInvalidSignedMsg, "amount %s: want a positive coin", a.Amount)
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	act := signedAction{
		renter: renter, chainID: a.CosmosChainId, evmChainID: a.EvmChainId, contract: a.VerifyingContract,
		nonce: a.Nonce, deadline: a.Deadline, maxFee: a.MaxRelayerFee, reserve: a.Amount, structHash: structHash,
	}
	recipient := common.BytesToAddress(renter)
	cacheCtx, write := sdk.UnwrapSDKContext(ctx).CacheContext()
	var cum types.MsgSubmitSignedWithdrawResponse
	fee, err := m.relaySigned(cacheCtx, params, msg.Submitter, msg.Signature, msg.RelayerFee, act, func() error {
		c, err := w.Withdraw(cacheCtx, renter, recipient, a.Amount)
		cum.Cumulative = c
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := cacheCtx.EventManager().EmitTypedEvent(&types.EventSignedActionRelayed{
		Action: "withdraw-to-evm", Renter: a.Renter, Submitter: msg.Submitter, Nonce: a.Nonce, RelayerFee: fee,
	}); err != nil {
		return nil, err
	}
	write()
	cum.EvmRecipient = recipient.Hex()
	return &cum, nil
}
