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

// exists reports whether a file named in a doc under dir is there: from
// the root, from the doc's own folder (a module's README names its files
// from the module), or, for the root docs that describe every module's
// shape (`x/m/…`, `keeper/…`, `types/…`), in at least one module.
func exists(dir, name string) bool {
	for _, p := range []string{filepath.Join(root, name), filepath.Join(root, dir, name)} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	generic := strings.TrimPrefix(name, "x/m/")
	if dir != "." && dir != "docs" || (generic == name && !strings.HasPrefix(name, "keeper/") && !strings.HasPrefix(name, "types/")) {
		return false
	}
	found, _ := filepath.Glob(filepath.Join(root, "x", "*", generic))
	return len(found) > 0
}

// path is a backquoted file of this repository named in prose: `dir/file.go`,
// also when a citation follows (`dir/file.go: Name`).
var path = regexp.MustCompile("`([a-z][\\w.-]*(?:/[\\w.-]+)+\\.(?:go|md|sol|sh|mk))(?::[^`]*)?`")

// TestDocsNameFilesThatExist: every file the design, the README and the
// packages' READMEs name by its path from the root is there, so a move
// that forgets the docs fails here.
func TestDocsNameFilesThatExist(t *testing.T) {
	docs := []string{"README.md", filepath.Join("docs", "design.md"), filepath.Join("agent", "README.md")}
	mods, err := filepath.Glob(filepath.Join(root, "x", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		rel, _ := filepath.Rel(root, m)
		docs = append(docs, rel)
	}
	named := 0
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range path.FindAllStringSubmatch(string(b), -1) {
			if strings.HasPrefix(m[1], "build/") {
				continue // what make writes, absent from a fresh clone
			}
			named++
			if !exists(filepath.Dir(doc), m[1]) {
				t.Errorf("%s names %s, which does not exist", doc, m[1])
			}
		}
	}
	if named < 50 {
		t.Fatalf("found only %d file names: the pattern no longer matches how the docs name files", named)
	}
}
