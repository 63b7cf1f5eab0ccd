package cmd

import (
	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoregistry"

	"cosmossdk.io/client/v2/autocli"
	"cosmossdk.io/client/v2/autocli/flag"

	"github.com/cosmos/cosmos-sdk/client"
	sdkflags "github.com/cosmos/cosmos-sdk/client/flags"
)

// enhanceRootCommand adds autocli's query and tx commands to rootCmd, as
// AppOptions.EnhanceRootCommand does, with this chain's flag types and
// output: accounts (accountType) and amounts (coinType, in display or base
// units, prices with "/gpu-h": markCoinFlags) are read before anything is
// signed, and this chain's responses print their zero values
// (zeroFieldFiles).
func enhanceRootCommand(rootCmd *cobra.Command, opts autocli.AppOptions) error {
	files, err := zeroFieldFiles()
	if err != nil {
		return err
	}
	builder := &autocli.Builder{
		Builder: flag.Builder{
			TypeResolver:          protoregistry.GlobalTypes,
			FileResolver:          files,
			AddressCodec:          opts.AddressCodec,
			ValidatorAddressCodec: opts.ValidatorAddressCodec,
			ConsensusAddressCodec: opts.ConsensusAddressCodec,
		},
		GetClientConn: func(cmd *cobra.Command) (grpc.ClientConnInterface, error) {
			return client.GetClientQueryContext(cmd)
		},
		AddQueryConnFlags: func(c *cobra.Command) {
			sdkflags.AddQueryFlagsToCmd(c)
			sdkflags.AddKeyringFlags(c.Flags())
		},
		AddTxConnFlags: sdkflags.AddTxFlagsToCmd,
	}
	builder.DefineScalarFlagType(flag.AddressStringScalarType, accountType{})
	builder.DefineMessageFlagType("cosmos.base.v1beta1.Coin", coinType{})
	if err := opts.EnhanceRootCommandWithBuilder(rootCmd, builder); err != nil {
		return err
	}
	markCoinFlags(rootCmd)
	return nil
}
