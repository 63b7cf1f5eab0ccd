package app

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	"github.com/cosmos/cosmos-sdk/types/module"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// DenomMetadata describes the chain's currencies (chaincfg.DenomMetadata):
// the bank genesis every new node starts from.
func DenomMetadata() []banktypes.Metadata { return chaincfg.DenomMetadata() }

// GenesisBasics returns a copy of the basic manager whose default genesis is
// the chain's (bank carries the denom metadata). `idlegpud init` and the
// tests both start from it, so a new node and a test agree on genesis.
func GenesisBasics(basics module.BasicManager) module.BasicManager {
	out := make(module.BasicManager, len(basics))
	for name, b := range basics { //detlint:allow copying a map into a map; order cannot matter
		out[name] = b
	}
	if bank, ok := basics[banktypes.ModuleName]; ok {
		out[banktypes.ModuleName] = bankWithMetadata{AppModuleBasic: bank}
	}
	return out
}

// bankWithMetadata adds DenomMetadata to x/bank's default genesis and leaves
// every other behaviour of the wrapped module basic as it is.
type bankWithMetadata struct {
	module.AppModuleBasic
}

// DefaultGenesis returns x/bank's default genesis with the chain's denom metadata.
func (b bankWithMetadata) DefaultGenesis(cdc codec.JSONCodec) json.RawMessage {
	var gs banktypes.GenesisState
	cdc.MustUnmarshalJSON(b.genesis().DefaultGenesis(cdc), &gs)
	gs.DenomMetadata = DenomMetadata()
	return cdc.MustMarshalJSON(&gs)
}

// ValidateGenesis delegates to x/bank.
func (b bankWithMetadata) ValidateGenesis(cdc codec.JSONCodec, txCfg client.TxEncodingConfig, bz json.RawMessage) error {
	return b.genesis().ValidateGenesis(cdc, txCfg, bz)
}

// GetTxCmd delegates to x/bank so `tx bank` keeps its hand-written commands.
func (b bankWithMetadata) GetTxCmd() *cobra.Command {
	if c, ok := b.AppModuleBasic.(interface{ GetTxCmd() *cobra.Command }); ok {
		return c.GetTxCmd()
	}
	return nil
}

func (b bankWithMetadata) genesis() module.HasGenesisBasics {
	return b.AppModuleBasic.(module.HasGenesisBasics)
}
