package app

import (
	"slices"

	authmodulev1 "cosmossdk.io/api/cosmos/auth/module/v1"

	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	distrtypes "github.com/cosmos/cosmos-sdk/x/distribution/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"
	minttypes "github.com/cosmos/cosmos-sdk/x/mint/types"
	protocolpooltypes "github.com/cosmos/cosmos-sdk/x/protocolpool/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// moduleAccPerms lists every module account and what it may do with coins.
// The market modules add theirs (escrow, rewards) as they gain state.
var moduleAccPerms = []*authmodulev1.ModuleAccountPermission{
	{Account: authtypes.FeeCollectorName},
	{Account: distrtypes.ModuleName},
	{Account: protocolpooltypes.ModuleName},
	{Account: protocolpooltypes.ProtocolPoolEscrowAccount},
	{Account: minttypes.ModuleName, Permissions: []string{authtypes.Minter}},
	{Account: stakingtypes.BondedPoolName, Permissions: []string{authtypes.Burner, stakingtypes.ModuleName}},
	{Account: stakingtypes.NotBondedPoolName, Permissions: []string{authtypes.Burner, stakingtypes.ModuleName}},
	{Account: govtypes.ModuleName, Permissions: []string{authtypes.Burner}},
	// x/provider holds bonded and unbonding stake and burns slashed stake.
	{Account: providertypes.ModuleName, Permissions: []string{authtypes.Burner}},
	// x/auction holds renters' deposits until leases are paid or refunded.
	{Account: auctiontypes.EscrowAccount},
	// x/settlement receives lease payments and credits providers' rewards.
	{Account: settlementtypes.ModuleName},
	// x/bridge mints credited deposits and burns withdrawals; it holds
	// nothing between the two.
	{Account: bridgetypes.ModuleName, Permissions: []string{authtypes.Minter, authtypes.Burner}},
}

// receivingModules may be sent coins by users; every other module account is
// blocked so nobody can slip coins into an account whose balance a module
// accounts for exactly (an escrow, a stake pool).
var receivingModules = []string{govtypes.ModuleName}

// blockedModuleAccounts returns the module accounts users cannot send to.
func blockedModuleAccounts() []string {
	blocked := make([]string, 0, len(moduleAccPerms))
	for _, p := range moduleAccPerms {
		if !slices.Contains(receivingModules, p.Account) {
			blocked = append(blocked, p.Account)
		}
	}
	return blocked
}

// BlockedAddresses returns the bech32 addresses bank refuses to send to.
func BlockedAddresses() map[string]bool {
	blocked := make(map[string]bool)
	for _, name := range blockedModuleAccounts() {
		blocked[authtypes.NewModuleAddress(name).String()] = true
	}
	return blocked
}

// ModuleAccountPermissions returns each module account's permissions.
func ModuleAccountPermissions() map[string][]string {
	perms := make(map[string][]string, len(moduleAccPerms))
	for _, p := range moduleAccPerms {
		perms[p.Account] = p.Permissions
	}
	return perms
}
