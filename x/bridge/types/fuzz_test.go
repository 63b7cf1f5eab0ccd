package types

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// FuzzParseEvmAddress: whatever is accepted is 0x + 40 hex, non-zero, and
// round-trips to the same bytes; a mixed-case input is accepted only with
// its EIP-55 checksum.
func FuzzParseEvmAddress(f *testing.F) {
	for _, s := range []string{
		"0x5FbDB2315678afecb367f032d93F642f64180aa3", "0x5fbdb2315678afecb367f032d93f642f64180aa3",
		"0x5FBDB2315678afecb367f032d93F642f64180aa3", "0x0000000000000000000000000000000000000000", "0x12", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		addr, err := ParseEvmAddress(s)
		if err != nil {
			return
		}
		if len(s) != 42 || !common.IsHexAddress(s) || addr == (common.Address{}) {
			t.Fatalf("accepted %q", s)
		}
		if !strings.EqualFold(addr.Hex(), s) {
			t.Fatalf("%q parsed to %s", s, addr.Hex())
		}
		d := s[2:]
		if d != strings.ToLower(d) && d != strings.ToUpper(d) && addr.Hex() != s {
			t.Fatalf("bad checksum accepted: %q", s)
		}
	})
}

func TestParseEvmAddress(t *testing.T) {
	for s, ok := range map[string]bool{
		"0x5FbDB2315678afecb367f032d93F642f64180aa3": true,  // EIP-55
		"0x5fbdb2315678afecb367f032d93f642f64180aa3": true,  // no checksum
		"0x5FBDB2315678AFECB367F032D93F642F64180AA3": true,  // no checksum
		"0x5FBDB2315678afecb367f032d93F642f64180aa3": false, // wrong checksum
		"0x0000000000000000000000000000000000000000": false,
		"5FbDB2315678afecb367f032d93F642f64180aa3":   false,
		"0x5FbDB2315678afecb367f032d93F642f64180aa":  false,
		"0xZZbDB2315678afecb367f032d93F642f64180aa3": false,
	} {
		_, err := ParseEvmAddress(s)
		if (err == nil) != ok {
			t.Errorf("%q: err %v, want ok=%v", s, err, ok)
		}
	}
}
