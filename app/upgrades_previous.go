//go:build previous_release

package app

// A build tagged previous_release is the release before the newest
// upgrade: it lacks that upgrade's handler, so on a chain whose governance
// scheduled it, the node halts at the upgrade height and asks for the new
// binary, as the previous release would. The upgrade test
// (scripts/networktest) runs it under cosmovisor as the binary the upgrade
// replaces; a release is never built with the tag.
func init() { Upgrades = Upgrades[:len(Upgrades)-1] }
