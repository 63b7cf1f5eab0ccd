package cmd

import (
	"strings"
	"testing"

	"github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"

	serverconfig "github.com/cosmos/cosmos-sdk/server/config"

	// The market's events, registered with gogoproto by their packages.
	_ "github.com/idlegpu/idlegpu/x/auction/types"
	_ "github.com/idlegpu/idlegpu/x/provider/types"
	_ "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestIndexEventsExist: app.toml's default index-events are written, and
// every market event in it names a real event message and field — a typo
// would silently index nothing.
func TestIndexEventsExist(t *testing.T) {
	_, cfg := initAppConfig()
	require.Equal(t, DefaultIndexEvents, cfg.(*serverconfig.Config).IndexEvents)
	for _, ev := range DefaultIndexEvents {
		typ, field, ok := cutLast(ev)
		require.True(t, ok, ev)
		if !strings.HasPrefix(typ, "idlegpu.") {
			continue // the SDK's message and transfer events
		}
		mt := proto.MessageType(typ)
		require.NotNil(t, mt, "%s: no such event message", ev)
		found := false
		for i := range mt.Elem().NumField() {
			if tag := mt.Elem().Field(i).Tag.Get("json"); strings.Split(tag, ",")[0] == field {
				found = true
			}
		}
		require.True(t, found, "%s: %s has no field %s", ev, typ, field)
	}
}

func cutLast(s string) (string, string, bool) {
	i := strings.LastIndex(s, ".")
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}
