// Package v7 is the upgrade that makes weighted reliability steps exact:
// x/provider keeps what a proven epoch's weighted step leaves below a whole
// bps in the reputation's reliability_carry and adds it to the next step
// (keeper.WeightedReliability), where each step used to be truncated, so a
// provider whose epochs each paid a small share of reliability_step_payment
// never rose. The field is new and starts at zero: no store migration, but
// every node must change the rule at the same height.
package v7

import "github.com/idlegpu/idlegpu/app/upgrades"

// UpgradeName is the name a governance upgrade plan gives.
const UpgradeName = "v7-exact-reliability-steps"

// Upgrade runs the module migrations (none change version here).
var Upgrade = upgrades.Upgrade{
	Name:          UpgradeName,
	CreateHandler: upgrades.RunMigrations,
}
