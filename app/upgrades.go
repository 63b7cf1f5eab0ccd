package app

import (
	"fmt"

	upgradetypes "github.com/cosmos/cosmos-sdk/x/upgrade/types"

	"github.com/idlegpu/idlegpu/app/upgrades"
	v2 "github.com/idlegpu/idlegpu/app/upgrades/v2"
	v3 "github.com/idlegpu/idlegpu/app/upgrades/v3"
	v4 "github.com/idlegpu/idlegpu/app/upgrades/v4"
	v5 "github.com/idlegpu/idlegpu/app/upgrades/v5"
	v6 "github.com/idlegpu/idlegpu/app/upgrades/v6"
	v7 "github.com/idlegpu/idlegpu/app/upgrades/v7"
	v8 "github.com/idlegpu/idlegpu/app/upgrades/v8"
)

// Upgrades are the named chain upgrades this binary knows, oldest first. Add
// one folder per upgrade under app/upgrades and list it here.
var Upgrades = []upgrades.Upgrade{v2.Upgrade, v3.Upgrade, v4.Upgrade, v5.Upgrade, v6.Upgrade, v7.Upgrade, v8.Upgrade}

// registerUpgrades installs the handler of every known upgrade and, when the
// node restarts at an upgrade height, the store changes that upgrade needs.
func (app *App) registerUpgrades() {
	for _, u := range Upgrades {
		app.UpgradeKeeper.SetUpgradeHandler(u.Name, u.CreateHandler(app.ModuleManager, app.Configurator(), &app.Keepers))
	}

	info, err := app.UpgradeKeeper.ReadUpgradeInfoFromDisk()
	if err != nil {
		panic(fmt.Errorf("failed to read upgrade info from disk: %w", err))
	}
	if info.Name == "" || app.UpgradeKeeper.IsSkipHeight(info.Height) {
		return
	}
	for _, u := range Upgrades {
		if u.Name == info.Name {
			stores := u.StoreUpgrades
			app.SetStoreLoader(upgradetypes.UpgradeStoreLoader(info.Height, &stores))
		}
	}
}
