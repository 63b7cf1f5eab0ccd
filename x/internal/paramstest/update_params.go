// Package paramstest holds the behaviour every market module's params must
// show, as test tables the modules run against their own keeper, so all four
// are held to one standard without four copies of it.
package paramstest

import (
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"

	"cosmossdk.io/core/address"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Harness adapts one module's keeper and messages to the shared tables.
type Harness[P any] struct {
	// Setup returns a fresh context whose store holds Default.
	Setup func(t *testing.T) sdk.Context
	// Update sends MsgUpdateParams{authority, params} to the module's Msg server.
	Update func(ctx sdk.Context, authority string, params P) error
	// Stored reads the params the keeper holds.
	Stored func(ctx sdk.Context) (P, error)
	// Event returns the authority and params of the module's EventParamsUpdated.
	Event func(msg proto.Message) (authority string, params P)
	// EventType is the event's proto name, e.g. idlegpu.provider.v1.EventParamsUpdated.
	EventType string

	AddrCodec address.Codec
	// Authority is the keeper's authority (the gov module account).
	Authority string
	// Default, Changed and Invalid are the params at setup, a valid change
	// to several fields, and a set Validate rejects.
	Default, Changed, Invalid P

	ErrInvalidAuthority, ErrInvalidParams error
}

// RunUpdateParams checks MsgUpdateParams: only the authority (the
// consensus-params authority when one is set) may change params; invalid
// params are refused; a refused message stores nothing and emits nothing; an
// accepted one stores exactly the new params and emits one typed event.
func RunUpdateParams[P any](t *testing.T, h Harness[P]) {
	t.Helper()
	addr := func(s string) string {
		str, err := h.AddrCodec.BytesToString([]byte(s))
		require.NoError(t, err)
		return str
	}
	stranger, council := addr("stranger____________"), addr("council_____________")
	withCouncil := func(ctx sdk.Context) sdk.Context {
		return ctx.WithConsensusParams(cmtproto.ConsensusParams{Authority: &cmtproto.AuthorityParams{Authority: council}})
	}

	testCases := []struct {
		name      string
		setup     func(sdk.Context) sdk.Context
		authority string
		params    P
		expErr    error
		expParams P
	}{
		{name: "gov authority replaces every param", authority: h.Authority, params: h.Changed, expParams: h.Changed},
		{name: "any other signer is rejected", authority: stranger, params: h.Changed, expErr: h.ErrInvalidAuthority, expParams: h.Default},
		{name: "empty authority is rejected", authority: "", params: h.Changed, expErr: h.ErrInvalidAuthority, expParams: h.Default},
		{name: "invalid params are rejected even from the authority", authority: h.Authority, params: h.Invalid, expErr: h.ErrInvalidParams, expParams: h.Default},
		{name: "an authority in consensus params replaces the keeper's", setup: withCouncil, authority: h.Authority, params: h.Changed, expErr: h.ErrInvalidAuthority, expParams: h.Default},
		{name: "the consensus-params authority is accepted", setup: withCouncil, authority: council, params: h.Changed, expParams: h.Changed},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := h.Setup(t).WithEventManager(sdk.NewEventManager())
			if tc.setup != nil {
				ctx = tc.setup(ctx)
			}

			err := h.Update(ctx, tc.authority, tc.params)

			got, getErr := h.Stored(ctx)
			require.NoError(t, getErr)
			require.Equal(t, tc.expParams, got)
			events := ctx.EventManager().Events()
			if tc.expErr != nil {
				require.ErrorIs(t, err, tc.expErr)
				require.Empty(t, events, "a rejected change emits nothing")
				return
			}
			require.NoError(t, err)
			require.Len(t, events, 1)
			require.Equal(t, h.EventType, events[0].Type)
			msg, err := sdk.ParseTypedEvent(abci.Event(events[0]))
			require.NoError(t, err)
			authority, params := h.Event(msg)
			require.Equal(t, tc.authority, authority)
			require.Equal(t, tc.expParams, params)
		})
	}
}
