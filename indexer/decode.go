package indexer

import (
	"fmt"
	"strings"
	"sync"

	abci "github.com/cometbft/cometbft/abci/types"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/chainclient"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// indexed are the typed events the writer applies, by proto name; the
// others a block carries are not decoded at all.
var indexed = func() map[string]bool {
	m := map[string]bool{}
	for _, ev := range []proto.Message{
		&auctiontypes.EventJobPosted{}, &auctiontypes.EventJobCleared{}, &auctiontypes.EventJobExpired{},
		&auctiontypes.EventJobCancelled{}, &auctiontypes.EventSignedJobRelayed{}, &auctiontypes.EventEscrowRefunded{},
		&auctiontypes.EventLeaseStarted{}, &auctiontypes.EventLeaseClosing{}, &auctiontypes.EventLeasePaid{},
		&auctiontypes.EventLeaseEnded{},
		&offertypes.EventOfferCreated{}, &offertypes.EventOfferUpdated{}, &offertypes.EventOfferClosed{},
		&offertypes.EventOfferRemoved{},
		&settlementtypes.EventProofAccepted{}, &settlementtypes.EventEpochMissed{}, &settlementtypes.EventEpochExcused{},
		&settlementtypes.EventRewardsClaimed{}, &settlementtypes.EventFraudProven{}, &settlementtypes.EventAuditOpened{},
		&settlementtypes.EventAuditAnswered{}, &settlementtypes.EventAuditResolved{},
		&providertypes.EventReputationChanged{}, &providertypes.EventSlashed{}, &providertypes.EventJailed{},
		&providertypes.EventTombstoned{},
	} {
		m[proto.MessageName(ev)] = true
	}
	return m
}()

// txDecoder decodes the chain's transactions with the agent's encoding
// (std, auth, bank and the market modules) plus x/bridge's messages, so that
// every message the chain accepts decodes.
var txDecoder = sync.OnceValues(func() (sdk.TxDecoder, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return nil, err
	}
	bridgetypes.RegisterInterfaces(enc.InterfaceRegistry)
	return enc.TxConfig.TxDecoder(), nil
})

// decodeEvents returns the typed events of evs that the writer applies.
func decodeEvents(evs []abci.Event) ([]proto.Message, error) {
	var out []proto.Message
	for _, ev := range evs {
		if !indexed[ev.Type] {
			continue
		}
		m, err := sdk.ParseTypedEvent(typedOnly(ev))
		if err != nil {
			return nil, fmt.Errorf("decode event %s: %w", ev.Type, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// typedOnly drops the attributes the SDK adds to a typed event after the
// fact ("mode" on finalize-block events, "msg_index" on a tx's): every
// attribute of the event proper is JSON, and "mode"'s value is not.
func typedOnly(ev abci.Event) abci.Event {
	attrs := make([]abci.EventAttribute, 0, len(ev.Attributes))
	for _, a := range ev.Attributes {
		if a.Key == "mode" || a.Key == "msg_index" {
			continue
		}
		attrs = append(attrs, a)
	}
	ev.Attributes = attrs
	return ev
}

// isEndBlock reports whether a finalize-block event came from EndBlock
// (the SDK marks each with a "mode" attribute).
func isEndBlock(ev abci.Event) bool {
	for _, a := range ev.Attributes {
		if a.Key == "mode" {
			return a.Value == "EndBlock"
		}
	}
	return false
}

// decodeBlock turns a block and its results into BlockData.
func decodeBlock(blk *ctypes.ResultBlock, res *ctypes.ResultBlockResults) (BlockData, error) {
	b := blk.Block
	if len(res.TxsResults) != len(b.Txs) {
		return BlockData{}, fmt.Errorf("block %d has %d txs but %d results", b.Height, len(b.Txs), len(res.TxsResults))
	}
	out := BlockData{Height: b.Height, Time: b.Time.UTC(), Proposer: b.ProposerAddress.String()}
	var begin, end []abci.Event
	for _, ev := range res.FinalizeBlockEvents {
		if isEndBlock(ev) {
			end = append(end, ev)
		} else {
			begin = append(begin, ev)
		}
	}
	var err error
	if out.Begin, err = decodeEvents(begin); err != nil {
		return BlockData{}, err
	}
	if out.End, err = decodeEvents(end); err != nil {
		return BlockData{}, err
	}
	dec, err := txDecoder()
	if err != nil {
		return BlockData{}, err
	}
	for i, raw := range b.Txs {
		r := res.TxsResults[i]
		t := TxData{Hash: strings.ToUpper(fmt.Sprintf("%x", raw.Hash())), Code: r.Code}
		if r.Code == 0 {
			if tx, err := dec(raw); err == nil {
				for _, m := range tx.GetMsgs() {
					t.Msgs = append(t.Msgs, m)
				}
			}
			if t.Events, err = decodeEvents(r.Events); err != nil {
				return BlockData{}, fmt.Errorf("tx %s: %w", t.Hash, err)
			}
		}
		out.Txs = append(out.Txs, t)
	}
	return out, nil
}
