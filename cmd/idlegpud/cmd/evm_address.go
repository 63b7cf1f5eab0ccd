package cmd

import (
	"encoding/hex"
	"fmt"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"cosmossdk.io/core/address"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgecli "github.com/idlegpu/idlegpu/x/bridge/client/cli"
)

// An Ethereum address owns the account with the same 20 bytes
// (docs/design.md#wallet-signed-bids), so the CLI takes `0x…` wherever it
// takes an account: `tx bank send alice 0xAbC… 10000000uusdc`, `q auction
// renter-jobs 0xAbC…`. The chain itself takes bech32 only; the CLI turns
// the one into the other before a command runs.

var evmAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// evmToBech32 returns the account of a 0x address, or s unchanged.
func evmToBech32(s string) string {
	if !evmAddress.MatchString(s) {
		return s
	}
	bz, _ := hex.DecodeString(s[2:]) // the pattern makes it valid hex
	return sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, bz)
}

// accountArgs rewrites, in place, every positional argument and every
// flag set on the command line that is a 0x address into its account's
// bech32 address, except in commands whose addresses are EVM-side
// (annotated with bridgecli.EVMArgsAnnotation).
func accountArgs(cmd *cobra.Command, args []string) error {
	if cmd.Annotations[bridgecli.EVMArgsAnnotation] != "" {
		return nil
	}
	for i, a := range args {
		args[i] = evmToBech32(a)
	}
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if v := f.Value.String(); err == nil && f.Value.Type() != "stringSlice" && evmAddress.MatchString(v) {
			err = cmd.Flags().Set(f.Name, evmToBech32(v))
		}
	})
	return err
}

// evmOrBech32 is the CLI's account address codec: bech32 as the chain's,
// and 0x addresses too, so flags typed as addresses accept them before
// accountArgs rewrites them.
type evmOrBech32 struct{ address.Codec }

func (c evmOrBech32) StringToBytes(s string) ([]byte, error) {
	if evmAddress.MatchString(s) {
		return hex.DecodeString(s[2:])
	}
	return c.Codec.StringToBytes(s)
}

// evmSideQueries are the autocli queries whose 0x argument names an EVM
// account (a payout recipient), not the appchain account with its bytes.
var evmSideQueries = [][]string{
	{"query", "bridge", "cumulative"},
	{"query", "bridge", "proof"},
}

// markEVMSide annotates the autocli commands autocli gives no way to
// annotate (hand-written ones carry the annotation themselves).
func markEVMSide(root *cobra.Command) {
	for _, path := range evmSideQueries {
		cmd, _, err := root.Find(path)
		if err != nil || cmd == root {
			panic(fmt.Sprintf("EVM-side command %v not found", path))
		}
		if cmd.Annotations == nil {
			cmd.Annotations = map[string]string{}
		}
		cmd.Annotations[bridgecli.EVMArgsAnnotation] = "true"
	}
}
