package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/eventjson"
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

// TestFastEventRefusesATimeATimestampCannotHold: a lease time past year
// 9999 fails both encodings, with eventjson's typed error.
func TestFastEventRefusesATimeATimestampCannotHold(t *testing.T) {
	e := &types.EventJobCleared{JobId: 1, Leases: []types.Lease{{Id: 1, CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	_, err := sdk.TypedEventToEvent(e)
	require.Error(t, err)
	_, err = e.ABCIEvent()
	var tre *eventjson.TimeRangeError
	require.ErrorAs(t, err, &tre)
	require.Equal(t, 10000, tre.Time.Year())
}
