package paramstest

import (
	"testing"

	"github.com/cosmos/gogoproto/proto"

	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
)

// Genesis is a module's GenesisState pointer type.
type Genesis[G any] interface {
	*G
	proto.Message
	Validate() error
}

// FuzzGenesis feeds arbitrary JSON and protobuf bytes through the decoding
// and validation a node runs on a genesis file and on MsgUpdateParams:
// whatever comes in, they return an error or a valid state, never a panic.
// The default genesis (both encodings) and seeds start the corpus.
func FuzzGenesis[G any, PG Genesis[G]](f *testing.F, def PG, seeds ...string) {
	cdc := codec.NewProtoCodec(codectypes.NewInterfaceRegistry())
	js, err := cdc.MarshalJSON(def)
	if err != nil {
		f.Fatal(err)
	}
	bin, err := cdc.Marshal(def)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	f.Add(bin)
	for _, s := range seeds {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, bz []byte) {
		fromJSON := PG(new(G))
		if cdc.UnmarshalJSON(bz, fromJSON) == nil {
			_ = fromJSON.Validate()
		}
		fromProto := PG(new(G))
		if cdc.Unmarshal(bz, fromProto) == nil {
			_ = fromProto.Validate()
		}
	})
}
