// Package msgtest runs the modules' ValidateBasic tables: one runner, so
// every module's table asserts the same things.
package msgtest

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// RunValidateBasic checks every case: Msg's ValidateBasic returns nil, or
// Err with exactly Text (what a client reads). The cases are an unnamed
// struct so tables stay positional.
func RunValidateBasic(t *testing.T, cases []struct {
	Name string
	Msg  sdk.HasValidateBasic
	Err  error
	Text string
}) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			err := tc.Msg.ValidateBasic()
			if tc.Err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.Err)
			require.Equal(t, tc.Text, err.Error())
		})
	}
}
