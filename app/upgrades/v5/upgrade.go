// Package v5 is the upgrade that gives x/bridge the vault's domain and its
// own bound on duty checks: x/auction moves from version 1 to 2 (its
// evm_chain_id and evm_verifying_contract params are handed to x/bridge,
// keeper.Migrator.Migrate1to2) and x/bridge from 2 to 3 (evm_chain_id,
// vault_address and max_duty_checks_per_block, keeper.Migrator.Migrate2to3).
// The domain's values do not change, so signatures made before it and the
// deployed vault stay valid.
package v5

import "github.com/idlegpu/idlegpu/app/upgrades"

// UpgradeName is the name a governance upgrade plan gives.
const UpgradeName = "v5-bridge-owns-vault"

// Upgrade runs the module migrations; x/auction's and x/bridge's do the work.
var Upgrade = upgrades.Upgrade{
	Name:          UpgradeName,
	CreateHandler: upgrades.RunMigrations,
}
