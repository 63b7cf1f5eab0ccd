// Package msgtest runs the modules' ValidateBasic tables: one runner, so
// every module's table asserts the same things.
package msgtest

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Cases is a ValidateBasic table: each Msg's ValidateBasic returns nil, or
// Err with exactly Text (what a client reads). An alias of an unnamed
// struct, so the tables stay positional.
type Cases = []struct {
	Name string
	Msg  sdk.HasValidateBasic
	Err  error
	Text string
}

// RunValidateBasic checks every case.
func RunValidateBasic(t *testing.T, cases Cases) {
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
