package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"

	"github.com/idlegpu/idlegpu/contracts/bindings"
)

// maxAttestsPerTx bounds one attestation tx, so a long backlog goes in
// several txs of bounded gas rather than one that no block can hold.
const maxAttestsPerTx = 32

// depositAttester attests the vault's deposits for one validator, in nonce
// order, up to the attestable bound (finality.go), and replaces any of its
// standing votes that an EVM reorg orphaned. Everything it decides comes
// from the two chains each round; the scan cursor and the memory of voted
// block hashes only save work and guard against double votes within one
// process.
type depositAttester struct {
	log      *slog.Logger
	m        *metrics
	chain    depositChain
	finality *finality
	evm      evmChain
	vault    *bindings.SettlementVault
	vaultC   *bind.BoundContract

	// scanFrom is the EVM block the next deposit search starts at; anchor
	// is the highest block searched. A nil anchor means "rebuild the
	// cursor from the idlegpu chain" (at start, after a failed round, after
	// a reorg of searched blocks).
	scanFrom uint64
	anchor   *blockRef
	// voted is every block hash this process has voted with (or seen as a
	// standing vote), by nonce: it never votes twice with one block hash.
	voted map[uint64]map[common.Hash]depositVote
}

func newDepositAttester(log *slog.Logger, m *metrics, c depositChain, f *finality, evm evmChain, vault common.Address) *depositAttester {
	v := bindings.NewSettlementVault()
	return &depositAttester{log: log, m: m, chain: c, finality: f, evm: evm,
		vault: v, vaultC: v.Instance(evm, vault), voted: map[uint64]map[common.Hash]depositVote{}}
}

// reset forgets the scan cursor: the next round rebuilds it from the chain.
func (a *depositAttester) reset() { a.anchor = nil }

// attest is one round: check the standing votes against the canonical EVM
// chain, supersede the orphaned ones whose deposit is attestable again,
// then attest the contiguous run of deposits after last (the validator's
// last attested nonce; the chain accepts only last+1 next).
func (a *depositAttester) attest(ctx context.Context, confirmations uint64, validator string, last uint64) error {
	head, err := a.evm.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("EVM head: %w", err)
	}
	a.m.EvmHead.Set(float64(head))
	b, err := a.finality.bound(ctx, a.evm, head, confirmations)
	if err != nil || b == nil {
		return err
	}
	for _, src := range []string{finalityFinalized, finalityDepth} {
		if src != b.Source {
			a.m.Attestable.DeleteLabelValues(src)
		}
	}
	a.m.Attestable.WithLabelValues(b.Source).Set(float64(b.Number))

	votes, err := a.chain.Votes(ctx, validator)
	if err != nil {
		return err
	}
	a.remember(votes, last)
	orphans, err := a.orphaned(ctx, votes, head)
	if err != nil {
		return err
	}
	if err := a.placeCursor(ctx, votes, orphans, last); err != nil {
		return err
	}
	if a.scanFrom > b.Number {
		return nil
	}
	deps, err := a.depositsIn(ctx, a.scanFrom, b.Number)
	if err != nil {
		return err
	}
	a.anchor = &b.blockRef
	var errs []error
	if len(orphans) > 0 {
		errs = append(errs, a.supersede(ctx, orphans, deps))
	}
	errs = append(errs, a.attestNew(ctx, validator, last, deps, b.Number))
	return errors.Join(errs...)
}

// orphaned are the votes whose Deposited log is no longer on the canonical
// EVM chain as voted: its block was reorged out (or is above a head that
// went back), or the log moved.
func (a *depositAttester) orphaned(ctx context.Context, votes []depositVote, head uint64) ([]depositVote, error) {
	if len(votes) == 0 {
		return nil, nil
	}
	lo, hi := votes[0].BlockNumber, votes[0].BlockNumber
	for _, v := range votes {
		lo, hi = min(lo, v.BlockNumber), max(hi, v.BlockNumber)
	}
	var logs []*bindings.SettlementVaultDeposited
	if lo <= head {
		var err error
		if logs, err = a.depositsIn(ctx, lo, min(hi, head)); err != nil {
			return nil, err
		}
	}
	var out []depositVote
	for _, v := range votes {
		found := false
		for _, d := range logs {
			if voteOf(d).sameLog(v) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, v)
		}
	}
	return out, nil
}

// placeCursor decides where this round's search starts. A searched block
// that is no longer canonical, or an orphaned vote, sends it back to where
// the chain's record is still canonical: the block of the nonce just below
// the first unsettled one (deposits are in nonce order on the EVM chain
// too, so nothing unsettled can be below it).
func (a *depositAttester) placeCursor(ctx context.Context, votes, orphans []depositVote, last uint64) error {
	if a.anchor != nil {
		h, err := a.evm.HeaderByNumber(ctx, new(big.Int).SetUint64(a.anchor.Number))
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			return fmt.Errorf("EVM block %d: %w", a.anchor.Number, err)
		}
		if h == nil || h.Hash() != a.anchor.Hash {
			a.log.Warn("EVM reorg below the searched blocks; searching again", "block", a.anchor.Number, "was", a.anchor.Hash)
			a.anchor = nil
		}
	}
	settled := last
	if len(orphans) > 0 {
		settled = orphans[0].Nonce - 1
	} else if a.anchor != nil {
		return nil
	}
	from, err := a.knownBlock(ctx, votes, settled)
	if err != nil {
		return err
	}
	a.scanFrom = from
	return nil
}

// knownBlock is the EVM block of deposit nonce as settled: the
// validator's own canonical vote, else the chain's record (credited).
// Nothing known: block 0.
func (a *depositAttester) knownBlock(ctx context.Context, votes []depositVote, nonce uint64) (uint64, error) {
	if nonce == 0 {
		return 0, nil
	}
	for _, v := range votes {
		if v.Nonce == nonce {
			return v.BlockNumber, nil
		}
	}
	n, _, err := a.chain.DepositBlock(ctx, nonce)
	return n, err
}

// supersede re-attests each orphaned vote whose deposit is back on the
// canonical chain within the attestable range (deps), in its new block.
// For a block hash this process already voted with, it sends only the very
// claim it sent then (the chain takes it back: a reorg returned to that
// block): a different claim for the same block hash is equivocation, which
// the chain slashes (x/bridge/keeper/attest.go: reattest). A deposit not
// attestable yet is waited for.
func (a *depositAttester) supersede(ctx context.Context, orphans []depositVote, deps []*bindings.SettlementVaultDeposited) error {
	byNonce := map[uint64]depositVote{}
	for _, d := range deps {
		byNonce[d.Nonce] = voteOf(d)
	}
	var errs []error
	var out, old []depositVote
	for _, o := range orphans {
		v, ok := byNonce[o.Nonce]
		switch {
		case !ok:
			a.log.Info("orphaned deposit vote; waiting for the deposit to be attestable", "nonce", o.Nonce, "block", o.BlockNumber, "hash", o.BlockHash)
			continue
		case v.BlockHash == o.BlockHash:
			errs = append(errs, fmt.Errorf("deposit %d: the standing vote differs from the log in its own block %s; not voting again for that block", o.Nonce, o.BlockHash))
			continue
		}
		if prev, ok := a.voted[o.Nonce][v.BlockHash]; ok && !prev.sameVote(v) {
			errs = append(errs, fmt.Errorf("deposit %d: block %s now shows another deposit than this validator attested from it; not voting again for that block",
				o.Nonce, v.BlockHash))
			continue
		}
		out, old = append(out, v), append(old, o)
	}
	if len(out) == 0 {
		return errors.Join(errs...)
	}
	tx, err := a.chain.Attest(ctx, out)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("superseding orphaned deposit votes %d..%d: %w", out[0].Nonce, out[len(out)-1].Nonce, err))...)
	}
	for i, v := range out {
		a.record(v)
		a.m.Superseded.Inc()
		a.log.Warn("superseded a deposit vote orphaned by an EVM reorg", "nonce", v.Nonce,
			"old_block", old[i].BlockNumber, "old_hash", old[i].BlockHash, "block", v.BlockNumber, "hash", v.BlockHash,
			"tx", tx, "content_changed", !v.sameContent(old[i]))
	}
	return errors.Join(errs...)
}

// attestNew attests the contiguous run of deposits after last in deps (at
// most maxAttestsPerTx) and moves the cursor past what it has seen.
func (a *depositAttester) attestNew(ctx context.Context, validator string, last uint64, deps []*bindings.SettlementVaultDeposited, bound uint64) error {
	// Only the contiguous run after last can be attested: a gap means the
	// node has not shown the missing deposit yet (reorg, lagging index).
	var out []depositVote
	next := last + 1
	for _, d := range deps {
		if d.Nonce < next {
			continue
		}
		if d.Nonce > next || len(out) == maxAttestsPerTx {
			break
		}
		out = append(out, voteOf(d))
		next++
	}
	if len(out) == 0 {
		// Nothing new up to bound: the next search starts after it, unless a
		// deposit after last is still being waited for in this range.
		if len(deps) == 0 || deps[len(deps)-1].Nonce <= last {
			a.scanFrom = bound + 1
		}
		return nil
	}
	tx, err := a.chain.Attest(ctx, out)
	if err != nil {
		return fmt.Errorf("attesting deposits %d..%d: %w", last+1, next-1, err)
	}
	for _, v := range out {
		a.record(v)
	}
	a.m.Attested.Add(float64(len(out)))
	a.m.LastAttested.Set(float64(next - 1))
	a.log.Info("attested deposits", "validator", validator, "from", last+1, "to", next-1, "tx", tx)
	// Several deposits can share a block: search the last one's block again.
	a.scanFrom = out[len(out)-1].BlockNumber
	return nil
}

// remember adds the standing votes to the voted block hashes and forgets
// nonces that can no longer be voted on (credited, or below the first
// standing vote).
func (a *depositAttester) remember(votes []depositVote, last uint64) {
	floor := last + 1
	if len(votes) > 0 {
		floor = votes[0].Nonce
	}
	for n := range a.voted {
		if n < floor {
			delete(a.voted, n)
		}
	}
	for _, v := range votes {
		a.record(v)
	}
}

func (a *depositAttester) record(v depositVote) {
	if a.voted[v.Nonce] == nil {
		a.voted[v.Nonce] = map[common.Hash]depositVote{}
	}
	a.voted[v.Nonce][v.BlockHash] = v
}

// depositsIn reads the vault's Deposited events in [from, to], by nonce.
func (a *depositAttester) depositsIn(ctx context.Context, from, to uint64) ([]*bindings.SettlementVaultDeposited, error) {
	it, err := bind.FilterEvents(a.vaultC, &bind.FilterOpts{Start: from, End: &to, Context: ctx}, a.vault.UnpackDepositedEvent)
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
