package web

import (
	"strings"

	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// parseAccount reads an account as people paste it: bech32 (idle1…), or
// a wallet's 0x address, whose account is the same 20 bytes. It returns the
// bech32 form, or a bad-request error.
func parseAccount(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if !common.IsHexAddress(s) {
			return "", badRequest("%q is not a 20-byte 0x address", s)
		}
		return sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, common.HexToAddress(s).Bytes()), nil
	}
	if _, err := sdk.GetFromBech32(s, chaincfg.Bech32Prefix); err != nil {
		return "", badRequest("%q is neither an %s… account nor a 0x address", s, chaincfg.Bech32Prefix)
	}
	return s, nil
}

// evmAddress is the 0x form of an account, for wallet renters.
func evmAddress(bech string) string {
	bz, err := sdk.GetFromBech32(bech, chaincfg.Bech32Prefix)
	if err != nil || len(bz) != common.AddressLength {
		return ""
	}
	return common.BytesToAddress(bz).Hex()
}
