package types_test

import (
	"testing"

	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// FuzzGenesisDecodeValidate feeds arbitrary JSON and protobuf bytes through
// the decoders and validation a node runs on genesis and on MsgUpdateParams:
// whatever comes in, they return an error or a valid state, never a panic.
func FuzzGenesisDecodeValidate(f *testing.F) {
	cdc := codec.NewProtoCodec(codectypes.NewInterfaceRegistry())
	def, err := cdc.MarshalJSON(types.DefaultGenesis())
	if err != nil {
		f.Fatal(err)
	}
	bin, err := cdc.Marshal(types.DefaultGenesis())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(def)
	f.Add(bin)
	f.Add([]byte(`{"params":{"take_rate_bps":10000,"gpu_models":[{"model":"","max_w":1}]}}`))
	f.Add([]byte(`{"params":{"epoch_seconds":"18446744073709551615","sample_interval_seconds":"99999999999"}}`))

	f.Fuzz(func(t *testing.T, bz []byte) {
		var gs types.GenesisState
		if cdc.UnmarshalJSON(bz, &gs) == nil {
			_ = gs.Validate()
		}
		var bgs types.GenesisState
		if cdc.Unmarshal(bz, &bgs) == nil {
			_ = bgs.Validate()
		}
	})
}
