package types

import (
	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/eventjson"
)

// EventProofAccepted is emitted once per proven lease-epoch, so it builds
// its ABCI form directly (x/internal/eventjson); events_abci_test.go pins
// it to sdk.TypedEventToEvent.

// ABCIEvent is sdk.TypedEventToEvent(e).
func (e *EventProofAccepted) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 6)
	b.Attr("lease_id").Uint64(e.LeaseId)
	b.Attr("epoch").Uint64(e.Epoch)
	b.Attr("provider").String(e.Provider)
	b.Attr("paid").Coin(e.Paid)
	b.Attr("fee").Coin(e.Fee)
	b.Attr("samples_root").Bytes(e.SamplesRoot)
	return b.Event()
}
