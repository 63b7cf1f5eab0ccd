// Package v2 is the upgrade to memwalk audits verified on chain: x/settlement
// moves from version 1 to 2 (keeper.Migrator.Migrate1to2 says what changes).
package v2

import "github.com/idlegpu/idlegpu/app/upgrades"

// UpgradeName is the name a governance upgrade plan gives.
const UpgradeName = "v2-memwalk-audits"

// Upgrade runs the module migrations; x/settlement's does the work.
var Upgrade = upgrades.Upgrade{
	Name:          UpgradeName,
	CreateHandler: upgrades.RunMigrations,
}
