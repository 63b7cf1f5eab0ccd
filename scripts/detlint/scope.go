package detlint

import (
	"fmt"
	"regexp"
)

// DefaultScope matches the import paths of the state-machine packages of
// github.com/idlegpu/idlegpu: every module's keeper and types packages (and
// their sub-packages) and the app package with its sub-packages. Clients,
// CLIs and binaries are left out because they legitimately read the clock,
// use floats for display and start goroutines.
const DefaultScope = `^github\.com/idlegpu/idlegpu/(x/[^/]+/(keeper|types)|app)(/.*)?$`

// scopeFlag is a flag.Value holding the compiled scope regexp. Compiling in
// Set makes a malformed -scope fail at flag parsing instead of in the middle
// of an analysis run.
type scopeFlag struct {
	re *regexp.Regexp
}

// newScopeFlag returns a scopeFlag set to expr; expr must be a valid regexp.
func newScopeFlag(expr string) *scopeFlag {
	return &scopeFlag{re: regexp.MustCompile(expr)}
}

// String returns the regexp source, as flag.Value requires.
func (s *scopeFlag) String() string {
	if s == nil || s.re == nil {
		return ""
	}
	return s.re.String()
}

// Set compiles expr and makes it the scope.
func (s *scopeFlag) Set(expr string) error {
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("invalid scope regexp: %w", err)
	}
	s.re = re
	return nil
}

// matches reports whether the package with import path pkgPath is
// state-machine code that detlint must check.
func (s *scopeFlag) matches(pkgPath string) bool {
	return s.re.MatchString(pkgPath)
}

// InScope reports whether pkgPath is checked under the default scope. It
// exists so callers (and tests) can ask the question without building an
// analyzer.
func InScope(pkgPath string) bool {
	return defaultScopeRE.MatchString(pkgPath)
}

// defaultScopeRE is DefaultScope compiled once.
var defaultScopeRE = regexp.MustCompile(DefaultScope)
