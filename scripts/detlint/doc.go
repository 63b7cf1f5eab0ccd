// Package detlint provides a go/analysis analyzer that reports
// non-deterministic constructs in the chain's state-machine code.
//
// Every validator must compute exactly the same state transition from the
// same block, so state-machine code may not read the wall clock, draw local
// randomness, use floating point, start goroutines or depend on Go's
// randomised map iteration order. detlint reports each of these in the
// packages its scope matches (keepers, module types and the app wiring by
// default) and leaves the rest of the repository alone, so it can be run over
// ./... safely.
//
// A finding that has been reviewed can be silenced with a line comment
//
//	//detlint:allow <reason>
//
// on the same line as the finding or on the line directly above it.
package detlint
