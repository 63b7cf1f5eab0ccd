package types

import (
	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/eventjson"
)

// The events a clearing emits per job, the one each proof's payment emits
// and each bid's build their ABCI form directly
// (x/internal/eventjson); events_abci_test.go pins each to
// sdk.TypedEventToEvent.

// ABCIEvent is sdk.TypedEventToEvent(e).
func (e *EventJobCleared) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 6)
	b.Attr("job_id").Uint64(e.JobId)
	b.Attr("clearing_price").Coin(e.ClearingPrice)
	b.Attr("rule").Enum(int32(e.Rule), ClearingRule_name)
	b.Attr("lease_ids").Uint64s(e.LeaseIds)
	b.Attr("candidates").Uint32(e.Candidates)
	w := b.Attr("leases").OpenArray()
	for i := range e.Leases {
		writeLease(w, &e.Leases[i])
	}
	w.CloseArray()
	return b.Event()
}

// ABCIEvent is sdk.TypedEventToEvent(e).
func (e *EventJobExpired) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 1)
	b.Attr("job_id").Uint64(e.JobId)
	return b.Event()
}

// ABCIEvent is sdk.TypedEventToEvent(e).
func (e *EventEscrowRefunded) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 4)
	b.Attr("job_id").Uint64(e.JobId)
	b.Attr("lease_id").Uint64(e.LeaseId)
	b.Attr("renter").String(e.Renter)
	b.Attr("amount").Coin(e.Amount)
	return b.Event()
}

// ABCIEvent is sdk.TypedEventToEvent(e); each proof pays its epoch with one.
func (e *EventLeasePaid) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 3)
	b.Attr("lease_id").Uint64(e.LeaseId)
	b.Attr("amount").Coin(e.Amount)
	b.Attr("paid").Coin(e.Paid)
	return b.Event()
}

// ABCIEvent is sdk.TypedEventToEvent(e); every bid emits one.
func (e *EventBidPlaced) ABCIEvent() (sdk.Event, error) {
	b := eventjson.NewBuilder(proto.MessageName(e), 1)
	w := b.Attr("bid").Open()
	w.Key("job_id").Uint64(e.Bid.JobId)
	w.Key("provider").String(e.Bid.Provider)
	w.Key("offer_id").Uint64(e.Bid.OfferId)
	w.Key("price").Coin(e.Bid.Price)
	w.Key("gpu_count").Uint32(e.Bid.GpuCount)
	w.Key("seq").Uint64(e.Bid.Seq)
	w.Close()
	return b.Event()
}

// writeLease writes a Lease message, its fields in proto order.
func writeLease(w *eventjson.Writer, l *Lease) {
	w.Open()
	w.Key("id").Uint64(l.Id)
	w.Key("job_id").Uint64(l.JobId)
	w.Key("renter").String(l.Renter)
	w.Key("provider").String(l.Provider)
	w.Key("offer_id").Uint64(l.OfferId)
	w.Key("gpu_uuids").Strings(l.GpuUuids)
	w.Key("price").Coin(l.Price)
	w.Key("tier").Enum(int32(l.Tier), Tier_name)
	w.Key("duration_seconds").Uint64(l.DurationSeconds)
	w.Key("escrow").Coin(l.Escrow)
	w.Key("paid").Coin(l.Paid)
	w.Key("status").Enum(int32(l.Status), LeaseStatus_name)
	w.Key("created_at").Time(l.CreatedAt)
	w.Key("start").Time(l.Start)
	w.Key("ended_at").Time(l.EndedAt)
	w.Key("reason").String(l.Reason)
	w.Key("start_deadline").Time(l.StartDeadline)
	w.Key("final_status").Enum(int32(l.FinalStatus), LeaseStatus_name)
	w.Key("closed_by_provider").Bool(l.ClosedByProvider)
	w.Close()
}
