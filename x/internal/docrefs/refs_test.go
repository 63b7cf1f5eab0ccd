package docrefs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var root = filepath.Join("..", "..", "..")

// ref is a citation: `dir/file.go: Name`, optionally followed by more
// names of the same file: `, ` + "`Other`".
var ref = regexp.MustCompile("`([a-z][\\w/.-]*\\.go): ([A-Za-z_]\\w*)`((?:,? `[A-Za-z_]\\w*`)*)")

var extraName = regexp.MustCompile("`([A-Za-z_]\\w*)`")

func TestDesignCitesCodeThatExists(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Citations may wrap across lines.
	text := strings.Join(strings.Fields(string(b)), " ")
	matches := ref.FindAllStringSubmatch(text, -1)
	if len(matches) < 30 {
		t.Fatalf("found only %d citations: the pattern no longer matches how design.md cites code", len(matches))
	}
	for _, m := range matches {
		src, err := os.ReadFile(filepath.Join(root, m[1]))
		if err != nil {
			t.Errorf("design.md cites %s, which does not exist", m[1])
			continue
		}
		names := []string{m[2]}
		for _, e := range extraName.FindAllStringSubmatch(m[3], -1) {
			names = append(names, e[1])
		}
		for _, n := range names {
			if !declares(string(src), n) {
				t.Errorf("design.md cites %s: %s, which that file does not declare", m[1], n)
			}
		}
	}
}

// declares reports whether Go source declares name as a function, method,
// type, const or var.
func declares(src, name string) bool {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`(?m)^func (\([^)]*\) )?`+q+`\b`).MatchString(src) ||
		regexp.MustCompile(`(?m)^(type|const|var) `+q+`\b`).MatchString(src) ||
		regexp.MustCompile(`(?m)^\t`+q+`\s+(=|[A-Za-z*\[])`).MatchString(src) // in a const/var/type block
}
