// Package upgrades is an app sub-package, also in the default scope.
package upgrades

// Run starts a goroutine.
func Run(f func()) {
	go f() // want `go statement is non-deterministic`
}
