package indexer

import (
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

func typedEvent(t *testing.T, m proto.Message, mode string) abci.Event {
	t.Helper()
	ev, err := sdk.TypedEventToEvent(m)
	require.NoError(t, err)
	if mode != "" {
		ev.Attributes = append(ev.Attributes, abci.EventAttribute{Key: "mode", Value: mode})
	}
	return abci.Event(ev)
}

// TestDecodeBlock decodes typed events as the chain emits them (JSON
// attributes, a "mode" attribute on finalize-block events) and keeps a
// failed tx's events out.
func TestDecodeBlock(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cleared := &auctiontypes.EventJobCleared{JobId: 3, ClearingPrice: sdk.NewInt64Coin("uusdc", 900_000), LeaseIds: []uint64{5},
		Leases: []auctiontypes.Lease{{Id: 5, JobId: 3, OfferId: 2, GpuUuids: []string{"GPU-x"}, Price: sdk.NewInt64Coin("uusdc", 900_000),
			Escrow: sdk.NewInt64Coin("uusdc", 900_000), Paid: sdk.NewInt64Coin("uusdc", 0), CreatedAt: at, StartDeadline: at.Add(time.Minute),
			Status: auctiontypes.LEASE_STATUS_PENDING}}}
	rep := &providertypes.EventReputationChanged{Provider: "idle1p", Reputation: providertypes.Reputation{ReliabilityBps: 9_000, ProvenEpochs: 4}}
	started := &auctiontypes.EventLeaseStarted{LeaseId: 5, Provider: "idle1p"}
	blk := &ctypes.ResultBlock{Block: &cmttypes.Block{Header: cmttypes.Header{Height: 9, Time: at}, Data: cmttypes.Data{
		Txs: cmttypes.Txs{[]byte("not a tx"), []byte("failed")}}}}
	res := &ctypes.ResultBlockResults{Height: 9,
		FinalizeBlockEvents: []abci.Event{
			typedEvent(t, rep, "BeginBlock"),
			{Type: "transfer", Attributes: []abci.EventAttribute{{Key: "amount", Value: "1ugpu"}}},
			typedEvent(t, cleared, "EndBlock"),
		},
		TxsResults: []*abci.ExecTxResult{
			{Code: 0, Events: []abci.Event{typedEvent(t, started, "")}},
			{Code: 5, Events: []abci.Event{typedEvent(t, started, "")}},
		}}
	b, err := decodeBlock(blk, res)
	require.NoError(t, err)
	require.EqualValues(t, 9, b.Height)
	require.Equal(t, at, b.Time)
	require.Len(t, b.Begin, 1)
	require.Equal(t, rep, b.Begin[0])
	require.Len(t, b.End, 1)
	require.Equal(t, cleared, b.End[0])
	require.Len(t, b.Txs, 2)
	require.Equal(t, []proto.Message{started}, b.Txs[0].Events)
	require.Nil(t, b.Txs[0].Msgs, "bytes that are no tx decode to no messages")
	require.EqualValues(t, 5, b.Txs[1].Code)
	require.Empty(t, b.Txs[1].Events)
	require.Len(t, b.Txs[0].Hash, 64)
}
