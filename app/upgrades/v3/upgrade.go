// Package v3 is the upgrade to the failure-cost rules: x/settlement moves
// from version 2 to 3 (keeper.Migrator.Migrate2to3 says what changes).
package v3

import "github.com/idlegpu/idlegpu/app/upgrades"

// UpgradeName is the name a governance upgrade plan gives.
const UpgradeName = "v3-failure-costs"

// Upgrade runs the module migrations; x/settlement's does the work.
var Upgrade = upgrades.Upgrade{
	Name:          UpgradeName,
	CreateHandler: upgrades.RunMigrations,
}
