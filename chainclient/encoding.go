package chainclient

import (
	"sync"

	"github.com/cosmos/cosmos-sdk/x/tx/signing"
	"github.com/cosmos/gogoproto/proto"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	"github.com/cosmos/cosmos-sdk/codec/address"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/std"
	authtx "github.com/cosmos/cosmos-sdk/x/auth/tx"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// EncodingConfig is what the agent needs to build, sign and decode the
// chain's transactions and queries.
type EncodingConfig struct {
	Codec             codec.Codec
	InterfaceRegistry codectypes.InterfaceRegistry
	TxConfig          client.TxConfig
}

// encoding registers only what the agent speaks: keys and accounts (std,
// auth), bank, and the four market modules. It does not link the app
// (every keeper and module): that halved the agent's resident memory.
var encoding = sync.OnceValues(func() (EncodingConfig, error) {
	ir, err := codectypes.NewInterfaceRegistryWithOptions(codectypes.InterfaceRegistryOptions{
		ProtoFiles: proto.HybridResolver,
		SigningOptions: signing.Options{
			AddressCodec:          address.NewBech32Codec(chaincfg.Bech32Prefix),
			ValidatorAddressCodec: address.NewBech32Codec(chaincfg.Bech32PrefixValAddr),
		},
	})
	if err != nil {
		return EncodingConfig{}, err
	}
	std.RegisterInterfaces(ir)
	authtypes.RegisterInterfaces(ir)
	banktypes.RegisterInterfaces(ir)
	providertypes.RegisterInterfaces(ir)
	offertypes.RegisterInterfaces(ir)
	auctiontypes.RegisterInterfaces(ir)
	settlementtypes.RegisterInterfaces(ir)
	cdc := codec.NewProtoCodec(ir)
	return EncodingConfig{Codec: cdc, InterfaceRegistry: ir, TxConfig: authtx.NewTxConfig(cdc, authtx.DefaultSignModes)}, nil
})

// Encoding returns the agent's encoding (built once).
func Encoding() (EncodingConfig, error) { return encoding() }
