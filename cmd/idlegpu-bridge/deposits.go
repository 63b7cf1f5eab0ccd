package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// maxAttestsPerTx bounds one attestation tx, so a long backlog goes in
// several txs of bounded gas rather than one that no block can hold.
const maxAttestsPerTx = 32

// attestDeposits attests, in nonce order, the vault's deposits after the
// validator's last attested nonce that have the chain's confirmation
// depth. The chain refuses anything but last+1 next, so the only state that
// matters is the chain's; the scan cursor is an optimisation rebuilt from
// the chain's record of the last attested deposit.
func (o *orchestrator) attestDeposits(ctx context.Context, p bridgeParams, validator string, last uint64) error {
	head, err := o.evm.client.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("EVM head: %w", err)
	}
	o.m.EvmHead.Set(float64(head))
	if head < p.params.EvmConfirmations {
		return nil
	}
	safe := head - p.params.EvmConfirmations
	if !o.haveScan {
		if o.scanFrom, err = o.resumeBlock(ctx, last); err != nil {
			return err
		}
		o.haveScan = true
	}
	if o.scanFrom > safe {
		return nil
	}
	deps, err := o.depositsIn(ctx, o.scanFrom, safe)
	if err != nil {
		return err
	}
	// Only the contiguous run after last can be attested: a gap means the
	// node has not shown the missing deposit yet (reorg, lagging index).
	var msgs []sdk.Msg
	next := last + 1
	var lastBlock uint64
	for _, d := range deps {
		if d.Nonce < next {
			continue
		}
		if d.Nonce > next || len(msgs) == maxAttestsPerTx {
			break
		}
		msgs = append(msgs, &bridgetypes.MsgAttestDeposit{
			Orchestrator: o.chain.Address().String(), Nonce: d.Nonce,
			EvmSender: d.From.Hex(), EvmRecipient: d.Recipient.Hex(),
			Amount:         sdkmath.NewIntFromBigInt(d.Amount),
			EvmBlockNumber: d.Raw.BlockNumber, EvmTxHash: d.Raw.TxHash.Hex(),
		})
		lastBlock = d.Raw.BlockNumber
		next++
	}
	if len(msgs) == 0 {
		// Nothing new up to safe: the next search starts after it, unless a
		// deposit after last is still being waited for in this range.
		if len(deps) == 0 || deps[len(deps)-1].Nonce <= last {
			o.scanFrom = safe + 1
		}
		return nil
	}
	res, err := o.chain.Submit(ctx, msgs...)
	if err != nil {
		return fmt.Errorf("attesting deposits %d..%d: %w", last+1, next-1, err)
	}
	o.m.Attested.Add(float64(len(msgs)))
	o.m.LastAttested.Set(float64(next - 1))
	o.log.Info("attested deposits", "validator", validator, "from", last+1, "to", next-1, "tx", res.TxHash)
	// Several deposits can share a block: search the last one's block again.
	o.scanFrom = lastBlock
	return nil
}

// resumeBlock is where a restarted orchestrator searches from: the EVM
// block of the last deposit it attested, as the chain recorded it (the
// credited deposit, or the votes still open). Nothing attested: block 0.
func (o *orchestrator) resumeBlock(ctx context.Context, last uint64) (uint64, error) {
	if last == 0 {
		return 0, nil
	}
	res, err := o.q.Deposit(ctx, &bridgetypes.QueryDepositRequest{Nonce: last})
	if err != nil {
		return 0, fmt.Errorf("deposit %d on the idlegpu chain: %w", last, err)
	}
	if res.Deposit != nil {
		return res.Deposit.Claim.EvmBlockNumber, nil
	}
	for _, v := range res.Votes {
		return v.Claim.EvmBlockNumber, nil
	}
	// The chain forgot it (pruned): search from the start, nonces skip it.
	return 0, nil
}

// depositsIn reads the vault's Deposited events in [from, to], by nonce.
func (o *orchestrator) depositsIn(ctx context.Context, from, to uint64) ([]*bindings.SettlementVaultDeposited, error) {
	it, err := bind.FilterEvents(o.evm.vaultC, &bind.FilterOpts{Start: from, End: &to, Context: ctx}, o.evm.vault.UnpackDepositedEvent)
	if err != nil {
		return nil, fmt.Errorf("vault deposits in blocks %d..%d: %w", from, to, err)
	}
	defer it.Close()
	var out []*bindings.SettlementVaultDeposited
	for it.Next() {
		if d := it.Value(); !d.Raw.Removed {
			out = append(out, d)
		}
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("vault deposits in blocks %d..%d: %w", from, to, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Nonce < out[j].Nonce })
	return out, nil
}
