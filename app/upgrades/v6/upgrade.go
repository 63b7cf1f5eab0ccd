// Package v6 is the upgrade that starts state retention: x/auction moves
// from version 2 to 3 (keeper.Migrator.Migrate2to3), gaining
// record_retention_seconds and max_record_prunes_per_block and retiring
// every job that had already ended, so ended jobs and leases leave state
// retention after the upgrade.
package v6

import "github.com/idlegpu/idlegpu/app/upgrades"

// UpgradeName is the name a governance upgrade plan gives.
const UpgradeName = "v6-state-retention"

// Upgrade runs the module migrations; x/auction's does the work.
var Upgrade = upgrades.Upgrade{
	Name:          UpgradeName,
	CreateHandler: upgrades.RunMigrations,
}
