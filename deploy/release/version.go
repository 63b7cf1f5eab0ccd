package main

import (
	"fmt"
	"regexp"
	"strings"
)

// pkgVersion is a release version as deb and rpm order it.
type pkgVersion struct {
	// Version is the numeric release, e.g. 1.2.0.
	Version string
	// Prerelease sorts before Version (~ in both formats), e.g. rc.1.
	Prerelease string
	// Metadata sorts after Version (+ in both), e.g. 3.gabc1234.dirty.
	Metadata string
}

// describeRE reads `git describe --tags --always` without its -dirty: a tag
// v1.2.0 or v1.2.0-rc.1, then -<commits>-g<hash> past the tag. The dot
// keeps a commit hash of decimal digits from reading as a version.
var describeRE = regexp.MustCompile(`^v?([0-9]+(?:\.[0-9]+)+)(?:-([0-9A-Za-z.]+?))?(?:-([0-9]+)-g([0-9a-f]+))?$`)

// hashRE is what `git describe --always` prints in a repository with no tag.
var hashRE = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// parseVersion maps the Makefile's VERSION to a package version. A build
// past a tag sorts after the tag; one from a repository without a tag is
// 0.0.0 plus its commit, older than any release.
func parseVersion(v string) (pkgVersion, error) {
	base, dirty := strings.CutSuffix(v, "-dirty")
	var meta []string
	var out pkgVersion
	switch m := describeRE.FindStringSubmatch(base); {
	case m != nil:
		out = pkgVersion{Version: m[1], Prerelease: m[2]}
		if m[3] != "" {
			meta = append(meta, m[3], "g"+m[4])
		}
	case hashRE.MatchString(base):
		out = pkgVersion{Version: "0.0.0"}
		meta = append(meta, "g"+base)
	case base == "dev" && !dirty:
		out = pkgVersion{Version: "0.0.0"}
		meta = append(meta, "dev")
	default:
		return pkgVersion{}, fmt.Errorf("version %q: want a tag like v1.2.0 or v1.2.0-rc.1 (git describe), a commit hash, or dev", v)
	}
	if dirty {
		meta = append(meta, "dirty")
	}
	out.Metadata = strings.Join(meta, ".")
	return out, nil
}
