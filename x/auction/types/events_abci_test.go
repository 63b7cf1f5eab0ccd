package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/eventjson/eventjsontest"
)

// TestFastEventsMatchTypedEvents: each event with a fast ABCI form gives
// exactly sdk.TypedEventToEvent's attributes, for random values of every
// field (escapes, unknown enums, nil Ints, zero and zoned times).
func TestFastEventsMatchTypedEvents(t *testing.T) {
	eventjsontest.Check(t, 3000, func() eventjsontest.Message { return &types.EventJobCleared{} })
	eventjsontest.Check(t, 1000, func() eventjsontest.Message { return &types.EventJobExpired{} })
	eventjsontest.Check(t, 1000, func() eventjsontest.Message { return &types.EventEscrowRefunded{} })
	eventjsontest.Check(t, 1000, func() eventjsontest.Message { return &types.EventLeasePaid{} })
	eventjsontest.Check(t, 1000, func() eventjsontest.Message { return &types.EventBidPlaced{} })
}
