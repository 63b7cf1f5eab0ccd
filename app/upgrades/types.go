// Package upgrades holds the chain's named software upgrades: one sub-folder
// per upgrade (v2/, v3/, …), each exporting an Upgrade that app/upgrades.go lists.
package upgrades

import (
	"context"

	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	upgradetypes "github.com/cosmos/cosmos-sdk/x/upgrade/types"
)

// Upgrade is one named, governance-scheduled software upgrade.
type Upgrade struct {
	// Name must equal the name in the gov upgrade plan.
	Name string

	// CreateHandler builds the handler that migrates state at the upgrade
	// height. keepers is *app.Keepers (typed any so this package does not
	// import app); most handlers only call mm.RunMigrations.
	CreateHandler func(mm *module.Manager, cfg module.Configurator, keepers any) upgradetypes.UpgradeHandler

	// StoreUpgrades adds, renames or deletes module stores at the upgrade height.
	StoreUpgrades storetypes.StoreUpgrades
}

// RunMigrations is the handler of an upgrade that needs nothing beyond each
// module's registered migrations.
func RunMigrations(mm *module.Manager, cfg module.Configurator, _ any) upgradetypes.UpgradeHandler {
	return func(ctx context.Context, _ upgradetypes.Plan, fromVM module.VersionMap) (module.VersionMap, error) {
		return mm.RunMigrations(ctx, cfg, fromVM)
	}
}
