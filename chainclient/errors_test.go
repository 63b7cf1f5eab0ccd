package chainclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	errorsmod "cosmossdk.io/errors"

	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

func TestTxErrorIs(t *testing.T) {
	proven := &TxError{Codespace: settlementtypes.ModuleName, Code: 10, Log: "epoch 3 of lease 7: epoch already proven or settled", TxHash: "AB12"}
	tests := []struct {
		name   string
		target error
		want   bool
	}{
		{"the registered error", settlementtypes.ErrEpochProven, true},
		{"the registered error, wrapped", errorsmod.Wrap(settlementtypes.ErrEpochProven, "lease 7"), true},
		{"another code of the codespace", settlementtypes.ErrEpochNotEnded, false},
		{"the same code of another codespace", sdkerrors.ErrInvalidCoins, false}, // sdk/10
		{"an equal TxError", &TxError{Codespace: settlementtypes.ModuleName, Code: 10}, true},
		{"another TxError", &TxError{Codespace: settlementtypes.ModuleName, Code: 9}, false},
		{"an error without a code", errors.New("epoch already proven or settled"), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, errors.Is(proven, tc.target))
			require.Equal(t, tc.want, errors.Is(fmt.Errorf("submit: %w", proven), tc.target), "through a wrap")
		})
	}
}

func TestTxErrorMessage(t *testing.T) {
	require.Equal(t, "tx rejected (sdk/5): spendable balance 1ugpu is smaller than 2ugpu: insufficient funds",
		(&TxError{Codespace: "sdk", Code: 5, Log: "spendable balance 1ugpu is smaller than 2ugpu: insufficient funds"}).Error())
	require.Equal(t, "tx AB12 failed (settlement/10): epoch already proven or settled",
		(&TxError{Codespace: "settlement", Code: 10, Log: "epoch already proven or settled", TxHash: "AB12"}).Error())
}

func TestTxErrorWrongSequence(t *testing.T) {
	require.True(t, (&TxError{Codespace: "sdk", Code: 32}).wrongSequence())
	require.False(t, (&TxError{Codespace: "sdk", Code: 5}).wrongSequence())
	require.False(t, (&TxError{Codespace: "settlement", Code: 32}).wrongSequence())
}

func TestExpectedSequence(t *testing.T) {
	seq, ok := expectedSequence("account sequence mismatch, expected 12, got 11: incorrect account sequence")
	require.True(t, ok)
	require.Equal(t, uint64(12), seq)
	seq, ok = expectedSequence("failed to simulate tx: account sequence mismatch, expected 7, got 9: incorrect account sequence")
	require.True(t, ok)
	require.Equal(t, uint64(7), seq)
	_, ok = expectedSequence("incorrect account sequence")
	require.False(t, ok)
}

func TestTransient(t *testing.T) {
	ctx := context.Background()
	refused := fmt.Errorf("post failed: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
	require.True(t, transient(ctx, refused))
	require.True(t, transient(ctx, fmt.Errorf("read: %w", io.ErrUnexpectedEOF)))
	require.True(t, transient(ctx, syscall.ECONNRESET))
	require.False(t, transient(ctx, nil))
	require.False(t, transient(ctx, errors.New("RPC error -32603 - Internal error: tx not found")))
	require.False(t, transient(ctx, &TxError{Codespace: "sdk", Code: 5}))

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.False(t, transient(cancelled, refused), "a cancelled caller stops retrying")
}

func TestBackoffDoublesToItsCap(t *testing.T) {
	var b backoff
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // wait returns at once, but still steps the delay
	var delays []time.Duration
	for range 7 {
		delays = append(delays, max(b.next, backoffStart))
		require.ErrorIs(t, b.wait(ctx), context.Canceled)
	}
	require.Equal(t, []time.Duration{
		250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		4 * time.Second, 5 * time.Second, 5 * time.Second,
	}, delays)
	b.reset()
	require.Equal(t, time.Duration(0), b.next)

	start := time.Now()
	require.NoError(t, b.wait(context.Background()))
	require.GreaterOrEqual(t, time.Since(start), backoffStart)
}
