package types

import (
	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/eventjson"
)

// EventReputationChanged is emitted once per proven lease-epoch (each
// moves the provider's reliability), so it builds its ABCI form directly
// (x/internal/eventjson); events_abci_test.go pins it to
// sdk.TypedEventToEvent.

// ABCIEvent is sdk.TypedEventToEvent(e).
func (e *EventReputationChanged) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 2)
	b.Attr("provider").String(e.Provider)
	r := &e.Reputation
	w := b.Attr("reputation").Open()
	w.Key("reliability_bps").Uint32(r.ReliabilityBps)
	w.Key("proven_epochs").Uint64(r.ProvenEpochs)
	w.Key("missed_epochs").Uint64(r.MissedEpochs)
	w.Key("leases_completed").Uint64(r.LeasesCompleted)
	w.Key("leases_failed").Uint64(r.LeasesFailed)
	w.Key("preemptions").Uint64(r.Preemptions)
	w.Key("frauds").Uint64(r.Frauds)
	w.Key("reliability_carry").Uint32(r.ReliabilityCarry)
	w.Close()
	return b.Event()
}
