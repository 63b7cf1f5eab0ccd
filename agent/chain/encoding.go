package chain

import (
	"sync"

	"cosmossdk.io/depinject"
	"cosmossdk.io/log/v2"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"

	"github.com/idlegpu/idlegpu/app"
)

// EncodingConfig is the chain's codec, interface registry and tx config:
// what it takes to sign, encode and decode the app's transactions and to
// unpack the Any fields of its query responses.
type EncodingConfig struct {
	Codec             codec.Codec
	InterfaceRegistry codectypes.InterfaceRegistry
	TxConfig          client.TxConfig
}

// noAppOptions stands in for the server's app options: the encoding does not
// depend on any, and the SDK's own stub lives in a testutil package that has
// no place in the agent binary.
type noAppOptions struct{}

func (noAppOptions) Get(string) any { return nil }

// encoding is built once: depinject resolves the whole app config, which is
// too slow to repeat per client and gives the same result every time.
var encoding = sync.OnceValues(func() (EncodingConfig, error) {
	var enc EncodingConfig
	err := depinject.Inject(
		depinject.Configs(app.AppConfig(), depinject.Supply(log.NewNopLogger(), noAppOptions{})),
		&enc.Codec, &enc.InterfaceRegistry, &enc.TxConfig,
	)
	return enc, err
})

// Encoding returns the idlegpu app's encoding, resolved from the same
// app config the node runs, so every module's messages and sign modes are
// known exactly as the chain knows them.
func Encoding() (EncodingConfig, error) { return encoding() }
