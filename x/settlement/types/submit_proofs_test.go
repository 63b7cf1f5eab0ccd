package types_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestSubmitProofsCount: baseapp and the CLI refuse a MsgSubmitProofs with
// no proofs as empty, not as one with too many; above the bound it is too
// many, and a count inside the bound passes.
func TestSubmitProofsCount(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want error
		msg  string
	}{
		{"none", 0, types.ErrNoProofs, "no proofs to submit: a MsgSubmitProofs needs at least one proof"},
		{"one", 1, nil, ""},
		{"at the bound", types.MaxProofsPerMsg, nil, ""},
		{"above the bound", types.MaxProofsPerMsg + 1, types.ErrTooManyProofs, "257 proofs, at most 256: too many proofs in one message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proofs := make([]types.ExecutionProof, tc.n)
			for i := range proofs {
				proofs[i] = validProof()
			}
			var msg sdk.Msg = &types.MsgSubmitProofs{Signer: operator, Provider: operator, Proofs: proofs}
			v, ok := msg.(sdk.HasValidateBasic)
			require.True(t, ok, "MsgSubmitProofs has no ValidateBasic: an empty message reaches the keeper, which calls it too many proofs")
			err := v.ValidateBasic()
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
			require.Equal(t, tc.msg, err.Error())
		})
	}
}
