// Package app looks like the app wiring, which the default scope checks.
package app

// Modules registers modules.
func Modules(m map[string]func()) {
	for _, f := range m { // want `range over map is non-deterministic`
		f()
	}
}
