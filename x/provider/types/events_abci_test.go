package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/internal/eventjson/eventjsontest"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// TestFastEventsMatchTypedEvents: EventReputationChanged's fast ABCI form
// is exactly sdk.TypedEventToEvent's, for random values of every field.
func TestFastEventsMatchTypedEvents(t *testing.T) {
	eventjsontest.Check(t, 1000, func() eventjsontest.Message { return &types.EventReputationChanged{} })
}
