package indexer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosmos/gogoproto/proto"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// BlockData is one decoded block: what IndexBlock needs of it.
type BlockData struct {
	// Height and Time are the block's header height and time.
	Height int64
	Time   time.Time
	// Proposer is the proposer's consensus address (hex).
	Proposer string
	// Begin are the typed events of PreBlock and BeginBlock.
	Begin []proto.Message
	// Txs are the block's transactions in block order.
	Txs []TxData
	// End are the typed events of EndBlock.
	End []proto.Message
}

// TxData is one decoded transaction of a block.
type TxData struct {
	// Hash is the transaction hash (upper-case hex).
	Hash string
	// Code is the result code; only a successful (0) tx's events are indexed.
	Code uint32
	// Msgs are the transaction's messages (nil when it did not decode).
	Msgs []proto.Message
	// Events are the typed events of its result.
	Events []proto.Message
}

// ErrHeight is the error class of a block refused for its height.
var ErrHeight = errors.New("index: block out of order")

// HeightError is returned by IndexBlock for a block that is not the one after
// the cursor: indexing it would leave a gap.
type HeightError struct {
	// Cursor is the last indexed height; Height the block offered.
	Cursor, Height int64
}

// Error implements error.
func (e *HeightError) Error() string {
	return fmt.Sprintf("index: block %d offered at cursor %d (want %d)", e.Height, e.Cursor, e.Cursor+1)
}

// Is makes errors.Is(err, ErrHeight) hold.
func (e *HeightError) Is(target error) bool { return target == ErrHeight }

// IndexBlock indexes one block in one transaction that also moves the cursor
// to its height. A height already indexed is skipped (nil); a block at any
// height other than cursor+1 is refused with a *HeightError and changes
// nothing.
func (d *DB) IndexBlock(ctx context.Context, b BlockData) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index block %d: %w", b.Height, err)
	}
	defer func() { _ = tx.Rollback() }()
	var cur int64
	if err := tx.QueryRowContext(ctx, `SELECT height FROM cursor WHERE id = 1`+d.sql.forUpdate()).Scan(&cur); err != nil {
		return fmt.Errorf("index block %d: read cursor: %w", b.Height, err)
	}
	if b.Height <= cur {
		return nil
	}
	if b.Height != cur+1 {
		return &HeightError{Cursor: cur, Height: b.Height}
	}
	if err := indexBlock(ctx, d, tx, b); err != nil {
		return fmt.Errorf("index block %d: %w", b.Height, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cursor SET height = ? WHERE id = 1`, b.Height); err != nil {
		return fmt.Errorf("index block %d: move cursor: %w", b.Height, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index block %d: commit: %w", b.Height, err)
	}
	return nil
}

// indexBlock writes the block's rows: its events in the order the chain
// emitted them (BeginBlock, each successful tx, EndBlock), then the
// per-block payout sums.
func indexBlock(ctx context.Context, d *DB, tx *tx, b BlockData) error {
	w := &writer{ctx: ctx, db: d, tx: tx, height: b.Height, time: b.Time.Unix(), payouts: map[payoutKey]*payout{}}
	events := len(b.Begin) + len(b.End)
	for _, t := range b.Txs {
		if t.Code == 0 {
			events += len(t.Events)
		}
	}
	if err := w.exec(`INSERT INTO blocks (height, time, proposer, txs, events) VALUES (?, ?, ?, ?, ?)`,
		b.Height, w.time, b.Proposer, len(b.Txs), events); err != nil {
		return err
	}
	for _, ev := range b.Begin {
		if err := w.apply(ev, nil); err != nil {
			return err
		}
	}
	for _, t := range b.Txs {
		if t.Code != 0 {
			continue
		}
		proofs := proofsOf(t.Msgs)
		for _, ev := range t.Events {
			if err := w.apply(ev, proofs); err != nil {
				return fmt.Errorf("tx %s: %w", t.Hash, err)
			}
		}
	}
	for _, ev := range b.End {
		if err := w.apply(ev, nil); err != nil {
			return err
		}
	}
	return w.flushPayouts()
}

// epochKey names one epoch of one lease.
type epochKey struct{ lease, epoch uint64 }

// proofsOf indexes the proofs a tx's MsgSubmitProofs carried by epoch, so
// that EventProofAccepted finds the per-GPU summaries it accepted.
func proofsOf(msgs []proto.Message) map[epochKey]*settlementtypes.ExecutionProof {
	var out map[epochKey]*settlementtypes.ExecutionProof
	for _, m := range msgs {
		sp, ok := m.(*settlementtypes.MsgSubmitProofs)
		if !ok {
			continue
		}
		if out == nil {
			out = map[epochKey]*settlementtypes.ExecutionProof{}
		}
		for i := range sp.Proofs {
			p := &sp.Proofs[i]
			out[epochKey{p.LeaseId, p.Epoch}] = p
		}
	}
	return out
}
