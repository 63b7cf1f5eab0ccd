package detlint

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// testScope limits a test analyzer to the rule fixtures under
// testdata/src/statemachine, leaving testdata/src/outofscope unchecked.
const testScope = `^statemachine(/.*)?$`

// TestRules runs every rule fixture: each finding is declared with a
// "// want" comment, and anything unexpected fails the test. The clean,
// generated and out-of-scope packages have no wants, so any report there is
// a failure.
func TestRules(t *testing.T) {
	a := newAnalyzer()
	if err := a.Flags.Set("scope", testScope); err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), a,
		"statemachine/clock",
		"statemachine/randimport",
		"statemachine/floats",
		"statemachine/goroutines",
		"statemachine/maprange",
		"statemachine/allow",
		"statemachine/generated",
		"statemachine/clean",
		"outofscope/everything",
	)
}

// TestDefaultScope runs the exported Analyzer, with its default scope, over
// packages laid out like the real repository: keepers, types and app
// packages are checked, the CLI and the daemon are not.
func TestDefaultScope(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), Analyzer,
		"github.com/idlegpu/idlegpu/...",
	)
}

// TestInvalidScope checks that a malformed -scope is rejected when the flag
// is parsed rather than failing later.
func TestInvalidScope(t *testing.T) {
	a := newAnalyzer()
	if err := a.Flags.Set("scope", "("); err == nil {
		t.Fatal("Set(\"(\") succeeded, want a regexp error")
	}
}
