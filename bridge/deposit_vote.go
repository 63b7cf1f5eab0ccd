package bridge

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/contracts/bindings"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// depositVote is one attestation of a vault Deposited log: what the chain
// credits (nonce, sender, recipient, amount) and where the log is (block
// number, block hash, tx hash). Everything in it is read from one block's
// receipts, so a block hash always yields the same vote: sending two
// different votes for one block hash would be equivocation.
type depositVote struct {
	Nonce       uint64
	Sender      common.Address
	Recipient   common.Address
	Amount      *big.Int
	BlockNumber uint64
	BlockHash   common.Hash
	TxHash      common.Hash
}

// voteOf is the vote for a Deposited log as the EVM node reports it.
func voteOf(d *bindings.SettlementVaultDeposited) depositVote {
	return depositVote{
		Nonce: d.Nonce, Sender: d.From, Recipient: d.Recipient, Amount: d.Amount,
		BlockNumber: d.Raw.BlockNumber, BlockHash: d.Raw.BlockHash, TxHash: d.Raw.TxHash,
	}
}

// sameContent: the chain credits both alike (location aside).
func (v depositVote) sameContent(o depositVote) bool {
	return v.Nonce == o.Nonce && v.Sender == o.Sender && v.Recipient == o.Recipient && v.Amount.Cmp(o.Amount) == 0
}

// sameVote: the same claim in every field the chain compares.
func (v depositVote) sameVote(o depositVote) bool {
	return v.sameContent(o) && v.BlockNumber == o.BlockNumber && v.BlockHash == o.BlockHash && v.TxHash == o.TxHash
}

// sameLog: the same content at the same place. A vote whose block hash is
// unknown (zero) is matched by block number and tx hash alone.
func (v depositVote) sameLog(o depositVote) bool {
	if v.BlockHash != (common.Hash{}) && o.BlockHash != (common.Hash{}) && v.BlockHash != o.BlockHash {
		return false
	}
	return v.sameContent(o) && v.BlockNumber == o.BlockNumber && v.TxHash == o.TxHash
}

// msg is the attestation message the orchestrator account sends.
func (v depositVote) msg(orchestrator string) *bridgetypes.MsgAttestDeposit {
	return &bridgetypes.MsgAttestDeposit{
		Orchestrator: orchestrator, Nonce: v.Nonce,
		EvmSender: v.Sender.Hex(), EvmRecipient: v.Recipient.Hex(),
		Amount:         sdkmath.NewIntFromBigInt(v.Amount),
		EvmBlockNumber: v.BlockNumber, EvmTxHash: v.TxHash.Hex(), EvmBlockHash: v.BlockHash.Hex(),
	}
}

// voteFromClaim reads a vote the idlegpu chain holds.
func voteFromClaim(c bridgetypes.DepositClaim) (depositVote, error) {
	sender, err := bridgetypes.ParseEvmAddress(c.EvmSender)
	if err != nil {
		return depositVote{}, fmt.Errorf("vote %d: %w", c.Nonce, err)
	}
	rcpt, err := sdk.AccAddressFromBech32(c.Recipient)
	if err != nil {
		return depositVote{}, fmt.Errorf("vote %d: recipient: %w", c.Nonce, err)
	}
	tx, err := parseHash(strings.ToLower(c.EvmTxHash))
	if err != nil {
		return depositVote{}, fmt.Errorf("vote %d: tx hash: %w", c.Nonce, err)
	}
	var block common.Hash // zero: a vote from before claims named their block
	if c.EvmBlockHash != "" {
		if block, err = parseHash(strings.ToLower(c.EvmBlockHash)); err != nil {
			return depositVote{}, fmt.Errorf("vote %d: block hash: %w", c.Nonce, err)
		}
	}
	if c.Amount.IsNil() {
		return depositVote{}, fmt.Errorf("vote %d: no amount", c.Nonce)
	}
	return depositVote{
		Nonce: c.Nonce, Sender: sender, Recipient: common.BytesToAddress(rcpt), Amount: c.Amount.BigInt(),
		BlockNumber: c.EvmBlockNumber, BlockHash: block, TxHash: tx,
	}, nil
}

// depositChain is what the deposit attester needs from the idlegpu chain:
// the validator's standing votes, where a decided deposit was, and a way to
// send votes. The orchestrator's real one is chainDeposits; tests keep the
// chain's rules in memory.
type depositChain interface {
	// Votes are the validator's standing votes above the last credited
	// nonce, in nonce order.
	Votes(ctx context.Context, validator string) ([]depositVote, error)
	// DepositBlock is the EVM block the chain recorded for nonce (credited,
	// or any validator's vote); false when it has no record.
	DepositBlock(ctx context.Context, nonce uint64) (uint64, bool, error)
	// Attest sends votes in one transaction and returns its hash.
	Attest(ctx context.Context, votes []depositVote) (string, error)
}

// chainDeposits is depositChain on the idlegpu chain's queries and the
// orchestrator's signing client.
type chainDeposits struct {
	q     bridgetypes.QueryClient
	chain *chainclient.Client
}

func (c chainDeposits) Votes(ctx context.Context, validator string) ([]depositVote, error) {
	res, err := c.q.Attestations(ctx, &bridgetypes.QueryAttestationsRequest{Validator: validator})
	if err != nil {
		return nil, fmt.Errorf("%s's standing deposit votes: %w", validator, err)
	}
	out := make([]depositVote, 0, len(res.Claims))
	for _, cl := range res.Claims {
		v, err := voteFromClaim(cl)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (c chainDeposits) DepositBlock(ctx context.Context, nonce uint64) (uint64, bool, error) {
	res, err := c.q.Deposit(ctx, &bridgetypes.QueryDepositRequest{Nonce: nonce})
	if notFound(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("deposit %d on the idlegpu chain: %w", nonce, err)
	}
	if res.Deposit != nil {
		return res.Deposit.Claim.EvmBlockNumber, true, nil
	}
	for _, v := range res.Votes {
		return v.Claim.EvmBlockNumber, true, nil
	}
	return 0, false, nil
}

func (c chainDeposits) Attest(ctx context.Context, votes []depositVote) (string, error) {
	msgs := make([]sdk.Msg, len(votes))
	for i, v := range votes {
		msgs[i] = v.msg(c.chain.Address().String())
	}
	res, err := c.chain.Submit(ctx, msgs...)
	if err != nil {
		return "", err
	}
	return res.TxHash, nil
}
