package types

import (
	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/eventjson"
)

// EventGPUsOccupied is emitted once per lease a clearing makes, so it
// builds its ABCI form directly (x/internal/eventjson);
// events_abci_test.go pins it to sdk.TypedEventToEvent.

// ABCIEvent is sdk.TypedEventToEvent(e).
func (e *EventGPUsOccupied) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 3)
	b.Attr("offer_id").Uint64(e.OfferId)
	b.Attr("gpu_uuids").Strings(e.GpuUuids)
	b.Attr("audit").Bool(e.Audit)
	return b.Event()
}
