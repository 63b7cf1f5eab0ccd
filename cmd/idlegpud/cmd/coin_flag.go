package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/reflect/protoreflect"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	"cosmossdk.io/client/v2/autocli/flag"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// priceFlags are the autocli coin flags that hold a price per GPU-hour
// (q offer search and candidates): they read as post-job's --max-price.
var priceFlags = map[string]bool{"max-price": true}

// coinType is how autocli reads a coin, positional or flag: as every
// idlegpud command reads an amount (parseCoin). Autocli's own read
// "0x10uusdc" as 0 of "x10uusdc", "0uusdc" as a coin, and only base units,
// so `q offer candidates` wanted 3000000uusdc where post-job took 3usdc.
type coinType struct{}

func (coinType) NewValue(*context.Context, *flag.Builder) flag.Value { return &coinValue{} }

func (coinType) DefaultValue() string { return "" }

type coinValue struct {
	coin *basev1beta1.Coin
	// price is set by markCoinFlags on a price flag: it may end in "/gpu-h".
	price bool
}

func (c *coinValue) Get(protoreflect.Value) (protoreflect.Value, error) {
	if c.coin == nil {
		return protoreflect.Value{}, nil
	}
	return protoreflect.ValueOfMessage(c.coin.ProtoReflect()), nil
}

func (c *coinValue) String() string {
	if c.coin == nil {
		return ""
	}
	return c.coin.Amount + c.coin.Denom
}

func (c *coinValue) Type() string {
	if c.price {
		return "price"
	}
	return "coin"
}

func (c *coinValue) Set(s string) error {
	coin, err := parseCoin(s, c.price)
	if err != nil {
		return err
	}
	c.coin = &basev1beta1.Coin{Denom: coin.Denom, Amount: coin.Amount.String()}
	return nil
}

// parseCoin reads an autocli amount, or a price, with units.ParseCoin
// (units.ParsePrice), as the hand-written commands do. Autocli reads flags
// before any node is known, so the units are the chain's genesis metadata
// (chaincfg.DenomMetadata), which nothing on chain changes.
func parseCoin(s string, price bool) (sdk.Coin, error) {
	if price {
		return units.ParsePrice(s, chaincfg.DenomMetadata())
	}
	return units.ParseCoin(s, chaincfg.DenomMetadata(), chaincfg.BondDenom)
}

// markCoinFlags marks autocli's price flags as prices and writes every
// coin flag's help, which autocli leaves empty, so it shows the forms
// that are read.
func markCoinFlags(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		v, ok := f.Value.(*coinValue)
		switch {
		case !ok:
		case priceFlags[f.Name]:
			v.price = true
			f.Usage = "price per GPU-hour, e.g. 1.5usdc/gpu-h, 1.5 USDC or 1500000uusdc"
		case f.Usage == "":
			f.Usage = "amount, e.g. 1.5gpu or 1500000ugpu"
		}
	})
	for _, sub := range c.Commands() {
		markCoinFlags(sub)
	}
}
