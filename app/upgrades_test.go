package app_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/app/upgrades"
)

// A named upgrade listed in app.Upgrades gets its handler installed, so a
// gov plan with that name runs it at the upgrade height.
func TestUpgradeHandlersAreRegistered(t *testing.T) {
	saved := app.Upgrades
	t.Cleanup(func() { app.Upgrades = saved })
	app.Upgrades = []upgrades.Upgrade{{Name: "v2", CreateHandler: upgrades.RunMigrations}}

	a := apptesting.NewApp(t)
	require.True(t, a.UpgradeKeeper.HasHandler("v2"))
	require.False(t, a.UpgradeKeeper.HasHandler("v3"))
}
