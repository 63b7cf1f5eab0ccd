package keepertables

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository, from this package's folder.
var root = filepath.Join("..", "..", "..")

// iface names an expected-keeper interface: the package folder and type.
type iface struct{ dir, name string }

// tables: each README section and the interfaces whose methods it must list
// (wiring: methods the app or depinject calls that no interface declares).
var tables = []struct {
	readme, heading string
	ifaces          []iface
	wiring          []string
}{
	{
		readme: "x/provider/README.md", heading: "## Keeper interface for the other market modules",
		ifaces: []iface{{"x/offer/types", "ProviderKeeper"}, {"x/auction/types", "ProviderKeeper"}, {"x/settlement/types", "ProviderKeeper"}},
		wiring: []string{"SetGPUModels"}, // app.go gives it x/settlement's GPU model table
	},
	{
		readme: "x/offer/README.md", heading: "## Keeper interface for the other market modules",
		ifaces: []iface{{"x/auction/types", "OfferKeeper"}, {"x/settlement/types", "OfferKeeper"}, {"x/settlement/types", "OfferHoldsSetter"}},
	},
	{
		readme: "x/auction/README.md", heading: "## Keeper interface for x/settlement",
		ifaces: []iface{{"x/settlement/types", "AuctionKeeper"}, {"x/settlement/types", "AuctionHooksSetter"}},
		wiring: []string{"SetEvmVault"}, // x/bridge's depinject hands it its vault
	},
	{
		readme: "x/bridge/README.md", heading: "## Keeper interface for x/auction",
		ifaces: []iface{{"x/auction/types", "EvmVault"}},
	},
}

func TestKeeperTablesMatchTheInterfaces(t *testing.T) {
	for _, tb := range tables {
		t.Run(tb.readme, func(t *testing.T) {
			want := slices.Clone(tb.wiring)
			for _, i := range tb.ifaces {
				want = append(want, interfaceMethods(t, i)...)
			}
			slices.Sort(want)
			want = slices.Compact(want)
			got := tableMethods(t, tb.readme, tb.heading)
			for _, m := range want {
				if !slices.Contains(got, m) {
					t.Errorf("%s misses %s, which another module calls", tb.readme, m)
				}
			}
			for _, m := range got {
				if !slices.Contains(want, m) {
					t.Errorf("%s lists %s, which no other module calls", tb.readme, m)
				}
			}
		})
	}
}

// interfaceMethods parses the package folder and returns the methods of the
// named interface type.
func interfaceMethods(t *testing.T, i iface) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(root, i.dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || ts.Name.Name != i.name {
					continue
				}
				it, ok := ts.Type.(*ast.InterfaceType)
				if !ok {
					t.Fatalf("%s.%s is not an interface", i.dir, i.name)
				}
				var out []string
				for _, m := range it.Methods.List {
					for _, n := range m.Names {
						out = append(out, n.Name)
					}
				}
				return out
			}
		}
	}
	t.Fatalf("no interface %s in %s", i.name, i.dir)
	return nil
}

// methodCell finds the backticked method names in a table row's first cell.
var methodCell = regexp.MustCompile("`([A-Z][A-Za-z0-9]*)\\(")

// tableMethods returns the methods the first table of a README section lists.
func tableMethods(t *testing.T, readme, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, readme))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	at := strings.Index(text, "\n"+heading+"\n")
	if at < 0 {
		t.Fatalf("%s has no %q section", readme, heading)
	}
	section := text[at+len(heading)+2:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var out []string
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if inTable && !strings.HasPrefix(line, "|") {
			break // the section's first table is the interface
		}
		inTable = strings.HasPrefix(line, "|")
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line[1:], "|", 2)[0]
		for _, m := range methodCell.FindAllStringSubmatch(cell, -1) {
			out = append(out, m[1])
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s's %q section has no method table", readme, heading)
	}
	return out
}
