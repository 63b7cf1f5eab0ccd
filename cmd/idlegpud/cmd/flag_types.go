package cmd

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	"cosmossdk.io/client/v2/autocli/flag"
	"cosmossdk.io/core/address"

	"github.com/cosmos/cosmos-sdk/client"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// accountType is how autocli reads an account (a cosmos.AddressString
// field, positional or flag, repeated or not): a key name, a bech32
// account, or a 0x address, which names the account with the same 20
// bytes. Autocli's own type keeps a 0x value as typed, so accountArgs
// could not rewrite a repeated flag's (--agents 0x…) and the chain was
// sent a 0x string it refuses.
type accountType struct{}

func (accountType) NewValue(ctx *context.Context, b *flag.Builder) flag.Value {
	return &accountValue{ctx: ctx, codec: b.AddressCodec}
}

func (accountType) DefaultValue() string { return "" }

type accountValue struct {
	ctx   *context.Context
	codec address.Codec
	value string
}

func (a *accountValue) Get(protoreflect.Value) (protoreflect.Value, error) {
	return protoreflect.ValueOfString(a.value), nil
}

func (a *accountValue) String() string { return a.value }

func (a *accountValue) Type() string { return "account address or key name" }

func (a *accountValue) Set(s string) error {
	var ctx context.Context
	if a.ctx != nil {
		ctx = *a.ctx
	}
	if addr, ok := keyAddress(ctx, s); ok {
		str, err := a.codec.BytesToString(addr)
		a.value = str
		return err
	}
	s = evmToBech32(s)
	if _, err := a.codec.StringToBytes(s); err != nil {
		return &precheck.ValueError{Value: s, Problem: fmt.Sprintf(
			"is neither a key name nor an account address (%s1… or 0x and 40 hex digits)", chaincfg.Bech32Prefix)}
	}
	a.value = s
	return nil
}

// keyAddress is the address of the key named name in the command's
// keyring, once the client context (and so the keyring) is set.
func keyAddress(ctx context.Context, name string) ([]byte, bool) {
	if ctx == nil {
		return nil, false
	}
	clientCtx, ok := ctx.Value(client.ClientContextKey).(*client.Context)
	if !ok || clientCtx.Keyring == nil {
		return nil, false
	}
	rec, err := clientCtx.Keyring.Key(name)
	if err != nil {
		return nil, false
	}
	addr, err := rec.GetAddress()
	return addr, err == nil
}
