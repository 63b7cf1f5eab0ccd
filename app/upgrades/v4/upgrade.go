// Package v4 is the upgrade to the bridge's backing per holder and
// equivocation rules: x/bridge moves from version 1 to 2
// (keeper.Migrator.Migrate1to2 says what changes). The vault's new root
// acceptance is a new vault deployment on the EVM side (contracts/README.md),
// not part of this upgrade.
package v4

import "github.com/idlegpu/idlegpu/app/upgrades"

// UpgradeName is the name a governance upgrade plan gives.
const UpgradeName = "v4-bridge-backing"

// Upgrade runs the module migrations; x/bridge's does the work.
var Upgrade = upgrades.Upgrade{
	Name:          UpgradeName,
	CreateHandler: upgrades.RunMigrations,
}
