package cmd

import (
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"

	serverconfig "github.com/cosmos/cosmos-sdk/server/config"

	"github.com/idlegpu/idlegpu/app"
)

// DefaultMinGasPrices is the least fee a node accepts into its mempool unless
// the operator sets another in app.toml: a spam floor far below any real
// market price (a default 200k-gas tx costs 500ugpu = 0.0005 GPU).
const DefaultMinGasPrices = "0.0025" + app.BondDenom

// DefaultTimeoutCommit is the pause after each block that `init` writes:
// one second suits local networks and the demo; public networks may raise it.
const DefaultTimeoutCommit = time.Second

// initAppConfig returns app.toml's template and defaults.
func initAppConfig() (string, any) {
	cfg := serverconfig.DefaultConfig()
	cfg.MinGasPrices = DefaultMinGasPrices
	return serverconfig.DefaultConfigTemplate, cfg
}

// initCometBFTConfig returns config.toml's defaults.
func initCometBFTConfig() *cmtcfg.Config {
	return cmtcfg.DefaultConfig()
}
