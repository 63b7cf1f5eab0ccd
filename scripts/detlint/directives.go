package detlint

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// allowDirective is the comment prefix that silences a finding. Like Go's
// own //go: directives it has no space after the slashes.
const allowDirective = "//detlint:allow"

// reporter reports findings for one file, dropping those silenced by a
// //detlint:allow directive on the same line or the line directly above.
type reporter struct {
	pass    *analysis.Pass
	file    *token.File
	allowed map[int]bool // lines carrying a directive with a reason
}

// newReporter collects the allow directives of f. A directive without a
// reason is reported rather than honoured: the reason is what lets a
// reviewer tell a considered exception from a silenced bug.
func newReporter(pass *analysis.Pass, f *ast.File) *reporter {
	r := &reporter{
		pass:    pass,
		file:    pass.Fset.File(f.FileStart),
		allowed: make(map[int]bool),
	}
	for _, group := range f.Comments {
		for _, c := range group.List {
			reason, ok := parseAllow(c.Text)
			if !ok {
				continue
			}
			if reason == "" {
				pass.Report(analysis.Diagnostic{
					Pos:      c.Pos(),
					End:      c.End(),
					Category: "directive",
					Message:  "detlint:allow needs a reason, e.g. //detlint:allow <why this is deterministic>",
				})
				continue
			}
			r.allowed[r.line(c.Pos())] = true
		}
	}
	return r
}

// parseAllow returns the reason of an allow directive and whether text is
// one. "//detlint:allowed" and similar words are not directives.
func parseAllow(text string) (reason string, ok bool) {
	rest, found := strings.CutPrefix(text, allowDirective)
	if !found {
		return "", false
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// line returns the physical line of pos, ignoring //line directives so that
// findings and the comments next to them are compared in the same terms.
func (r *reporter) line(pos token.Pos) int {
	return r.file.PositionFor(pos, false).Line
}

// report emits a finding for rng unless an allow directive covers its line.
func (r *reporter) report(rng analysis.Range, category, format string, args ...any) {
	line := r.line(rng.Pos())
	if r.allowed[line] || r.allowed[line-1] {
		return
	}
	r.pass.Report(analysis.Diagnostic{
		Pos:      rng.Pos(),
		End:      rng.End(),
		Category: category,
		Message:  fmt.Sprintf(format, args...),
	})
}
