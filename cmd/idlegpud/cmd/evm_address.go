package cmd

import (
	"encoding/hex"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"cosmossdk.io/core/address"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/chaincfg"
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
// bech32 address. (A command that takes an address for the EVM side will
// need a way out of this.)
func accountArgs(cmd *cobra.Command, args []string) error {
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
