// Command idlegpu-pkg builds the idlegpu .deb and .rpm packages with nfpm:
// one package per program (idlegpud, idlegpu-agent, idlegpu-web,
// idlegpu-bridge), each with its binary, its systemd unit from
// deploy/systemd, its environment file and the maintainer scripts that make
// its user, group and directories. `make release` and `make release-check`
// run it (deploy/release/README.md).
//
//	idlegpu-pkg -version v1.2.0 -arch amd64 -units deploy/systemd -out DIR \
//	    -bin idlegpud=PATH -bin idlegpu-agent=PATH …
//
// Only the programs named with -bin are packaged.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "idlegpu-pkg:", err)
		os.Exit(1)
	}
}

// binFlags collects repeated -bin program=path flags.
type binFlags map[string]string

func (b binFlags) String() string { return fmt.Sprint(map[string]string(b)) }

func (b binFlags) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want program=path, got %q", s)
	}
	if !slices.ContainsFunc(programs, func(p program) bool { return p.Name == name }) {
		return fmt.Errorf("unknown program %q", name)
	}
	b[name] = path
	return nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("idlegpu-pkg", flag.ContinueOnError)
	bins := binFlags{}
	var o options
	fs.StringVar(&o.version, "version", "", "release version as `git describe --tags --always --dirty` prints it (required)")
	fs.StringVar(&o.arch, "arch", "", "GOARCH of the binaries: amd64 or arm64 (required)")
	fs.StringVar(&o.units, "units", "deploy/systemd", "directory of the <program>.service units")
	fs.StringVar(&o.out, "out", "", "directory the packages are written to (required)")
	formats := fs.String("formats", "deb,rpm", "package formats, comma-separated: deb, rpm")
	fs.StringVar(&o.maintainer, "maintainer", "", "the packages' maintainer, `Name <email>` (required)")
	fs.StringVar(&o.homepage, "homepage", "", "the packages' homepage URL")
	fs.StringVar(&o.compression, "compression", "", "payload compression, e.g. gzip:1 for speed (default: nfpm's, gzip at its best for .deb)")
	fs.Var(bins, "bin", "`program=path` of a binary to package (repeat)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case o.version == "" || o.arch == "" || o.out == "" || o.maintainer == "":
		return fmt.Errorf("-version, -arch, -out and -maintainer are required")
	case o.arch != "amd64" && o.arch != "arm64":
		return fmt.Errorf("-arch %q: want amd64 or arm64", o.arch)
	case len(bins) == 0:
		return fmt.Errorf("no -bin: nothing to package")
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	v, err := parseVersion(o.version)
	if err != nil {
		return err
	}
	o.pkgVersion = v
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	scriptDir, err := os.MkdirTemp("", "idlegpu-pkg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scriptDir)

	for _, p := range programs {
		bin, ok := bins[p.Name]
		if !ok {
			continue
		}
		st, err := stage(p, scriptDir)
		if err != nil {
			return err
		}
		for _, format := range strings.Split(*formats, ",") {
			path, err := o.build(p, bin, st, format)
			if err != nil {
				return fmt.Errorf("%s %s: %w", p.Name, format, err)
			}
			fmt.Println(path)
		}
	}
	return nil
}
