package main

import "testing"

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in   string
		want pkgVersion
	}{
		{"v1.2.0", pkgVersion{Version: "1.2.0"}},
		{"1.2.0", pkgVersion{Version: "1.2.0"}},
		{"v1.2.0-rc.1", pkgVersion{Version: "1.2.0", Prerelease: "rc.1"}},
		{"v1.2.0-3-gabc1234", pkgVersion{Version: "1.2.0", Metadata: "3.gabc1234"}},
		{"v1.2.0-rc.1-3-gabc1234-dirty", pkgVersion{Version: "1.2.0", Prerelease: "rc.1", Metadata: "3.gabc1234.dirty"}},
		{"v1.2.0-dirty", pkgVersion{Version: "1.2.0", Metadata: "dirty"}},
		{"af7dea7", pkgVersion{Version: "0.0.0", Metadata: "gaf7dea7"}},
		{"af7dea7-dirty", pkgVersion{Version: "0.0.0", Metadata: "gaf7dea7.dirty"}},
		{"1234567", pkgVersion{Version: "0.0.0", Metadata: "g1234567"}},
		{"dev", pkgVersion{Version: "0.0.0", Metadata: "dev"}},
	}
	for _, c := range cases {
		got, err := parseVersion(c.in)
		if err != nil {
			t.Errorf("parseVersion(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("parseVersion(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "main", "v1.2.0 ", "release-1", "v1.2.0-rc_1", "v1", "dirty", "-dirty"} {
		if got, err := parseVersion(bad); err == nil {
			t.Errorf("parseVersion(%q) = %+v, want an error", bad, got)
		}
	}
}

func TestShellQuote(t *testing.T) {
	if got, want := shellQuote(`it's`), `'it'\''s'`; got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}
