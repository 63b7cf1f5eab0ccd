package detlint

import "testing"

// TestInScope pins down which repository packages the default scope treats
// as state machine.
func TestInScope(t *testing.T) {
	cases := []struct {
		path string
		want bool
	}{
		{"github.com/idlegpu/idlegpu/x/provider/keeper", true},
		{"github.com/idlegpu/idlegpu/x/provider/keeper/migrations", true},
		{"github.com/idlegpu/idlegpu/x/provider/types", true},
		{"github.com/idlegpu/idlegpu/x/jobs/types/v1", true},
		{"github.com/idlegpu/idlegpu/app", true},
		{"github.com/idlegpu/idlegpu/app/upgrades", true},
		{"github.com/idlegpu/idlegpu/x/provider/client/cli", false},
		{"github.com/idlegpu/idlegpu/x/provider", false},
		{"github.com/idlegpu/idlegpu/x/provider/module", false},
		{"github.com/idlegpu/idlegpu/x/provider/keeper_test", false},
		{"github.com/idlegpu/idlegpu/cmd/idlegpud", false},
		{"github.com/idlegpu/idlegpu/application", false},
		{"github.com/idlegpu/idlegpu/scripts/detlint", false},
		{"github.com/other/chain/x/provider/keeper", false},
		{"example.com/github.com/idlegpu/idlegpu/app", false},
	}
	for _, c := range cases {
		if got := InScope(c.path); got != c.want {
			t.Errorf("InScope(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

// TestScopeFlag checks that the flag matches what InScope says by default
// and follows a new value once set.
func TestScopeFlag(t *testing.T) {
	s := newScopeFlag(DefaultScope)
	if !s.matches("github.com/idlegpu/idlegpu/app") || s.matches("github.com/idlegpu/idlegpu/cmd/idlegpud") {
		t.Fatalf("default scope flag disagrees with DefaultScope")
	}
	if err := s.Set(`^statemachine(/.*)?$`); err != nil {
		t.Fatal(err)
	}
	if !s.matches("statemachine/clock") || s.matches("github.com/idlegpu/idlegpu/app") {
		t.Fatalf("scope flag did not follow Set")
	}
	if s.String() != `^statemachine(/.*)?$` {
		t.Fatalf("String() = %q", s.String())
	}
}
