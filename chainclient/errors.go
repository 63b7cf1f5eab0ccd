package chainclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"syscall"

	errorsmod "cosmossdk.io/errors"

	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
)

var (
	// ErrNotIncluded is returned when a broadcast tx is not found in a
	// block within the configured TxTimeout. It may still be included later.
	ErrNotIncluded = errors.New("tx not included in time")

	// ErrHeightUnavailable is returned by FollowHeaders when the node no
	// longer keeps (has pruned) the next height to deliver.
	ErrHeightUnavailable = errors.New("height no longer kept by the node")
)

// TxError is a transaction the chain rejected: in simulation (TxHash is
// empty), in CheckTx, or in the block (DeliverTx). errors.Is matches it
// against the registered error with the same codespace and code, e.g.
// errors.Is(err, settlementtypes.ErrEpochProven).
type TxError struct {
	Codespace string
	Code      uint32
	Log       string
	TxHash    string
}

// Error says where the tx failed and why.
func (e *TxError) Error() string {
	if e.TxHash == "" {
		return fmt.Sprintf("tx rejected (%s/%d): %s", e.Codespace, e.Code, e.Log)
	}
	return fmt.Sprintf("tx %s failed (%s/%d): %s", e.TxHash, e.Codespace, e.Code, e.Log)
}

// Is compares codespace and code, the only identity an error keeps across
// the ABCI boundary.
func (e *TxError) Is(target error) bool {
	if t, ok := target.(*TxError); ok {
		return t.Codespace == e.Codespace && t.Code == e.Code
	}
	codespace, code, _ := errorsmod.ABCIInfo(target, false)
	// Errors without an ABCI code all map to the same "undefined" pair;
	// they name no chain error.
	if codespace == errorsmod.UndefinedCodespace || code == errorsmod.SuccessABCICode {
		return false
	}
	return codespace == e.Codespace && code == e.Code
}

// is reports whether the chain rejected the tx with the registered error.
func (e *TxError) is(target *errorsmod.Error) bool {
	return e.Codespace == target.Codespace() && e.Code == target.ABCICode()
}

// wrongSequence reports the SDK's "account sequence mismatch": another tx
// of the same key (another process, or one the cache missed) came first.
func (e *TxError) wrongSequence() bool { return e.is(sdkerrors.ErrWrongSequence) }

// expectedSeq is the ante handler's message for a wrong sequence:
// "account sequence mismatch, expected 12, got 11: incorrect account sequence".
var expectedSeq = regexp.MustCompile(`account sequence mismatch, expected (\d+)`)

// expectedSequence is the sequence the node expects, read from a wrong
// sequence log. It counts txs still in the node's mempool, which the
// committed account state does not.
func expectedSequence(log string) (uint64, bool) {
	m := expectedSeq.FindStringSubmatch(log)
	if m == nil {
		return 0, false
	}
	seq, err := strconv.ParseUint(m[1], 10, 64)
	return seq, err == nil
}

// transient reports a failure to reach the node (down, restarting,
// connection refused or reset, an RPC timeout) rather than an answer from
// it: worth retrying as it is. Cancellation of ctx is never transient.
func transient(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
