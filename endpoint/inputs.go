package endpoint

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// Where a job sees its data.
const (
	// InputsDir holds the inputs, read-only, each at its manifest path.
	InputsDir = "/inputs"
	// OutputDir is always there and writable by the job's user; what is in
	// it when the job ends is what the renter downloads.
	OutputDir = "/output"
)

// Bounds of a manifest's inputs.
const (
	// MaxInputs bounds how many inputs a manifest names.
	MaxInputs = 64
	// MaxPathBytes bounds an input's path.
	MaxPathBytes = 255
	// MaxURLBytes bounds an input's URL.
	MaxURLBytes = 2048
)

// Input is a file the job reads: fetched from URL, checked against SHA256
// (lower-case hex), placed at InputsDir/Path.
type Input struct {
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	Path   string `json:"path"`
}

// ValidateInputs checks a manifest's inputs: at most MaxInputs, http(s)
// URLs, 64-hex sha256s, and clean relative paths that are unique and do not
// nest inside one another (a file cannot also be a directory).
func ValidateInputs(in []Input) error {
	if len(in) > MaxInputs {
		return fmt.Errorf("%d inputs, at most %d", len(in), MaxInputs)
	}
	seen := map[string]bool{}
	for i, x := range in {
		if err := checkURL(x.URL); err != nil {
			return fmt.Errorf("inputs[%d].url: %w", i, err)
		}
		if b, err := hex.DecodeString(x.SHA256); err != nil || len(b) != 32 || strings.ToLower(x.SHA256) != x.SHA256 {
			return fmt.Errorf("inputs[%d].sha256: want 64 lower-case hex digits", i)
		}
		if err := ValidPath(x.Path); err != nil {
			return fmt.Errorf("inputs[%d].path: %w", i, err)
		}
		if seen[x.Path] {
			return fmt.Errorf("inputs[%d].path %q named twice", i, x.Path)
		}
		seen[x.Path] = true
	}
	for p := range seen {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if seen[d] {
				return fmt.Errorf("inputs: %q is a file and the directory of %q", d, p)
			}
		}
	}
	return nil
}

// ValidPath checks a file's path relative to a job directory: non-empty,
// clean, relative, without "..", NUL or control characters, valid UTF-8.
func ValidPath(p string) error {
	switch {
	case p == "" || len(p) > MaxPathBytes:
		return fmt.Errorf("path must be 1 to %d bytes", MaxPathBytes)
	case !utf8.ValidString(p):
		return fmt.Errorf("path is not valid UTF-8")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q is absolute", p)
	case path.Clean(p) != p || p == ".":
		return fmt.Errorf("path %q is not clean", p)
	case p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("path %q leaves its directory", p)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return fmt.Errorf("path %q has a control character or backslash", p)
		}
	}
	return nil
}

func checkURL(s string) error {
	if len(s) > MaxURLBytes {
		return fmt.Errorf("longer than %d bytes", MaxURLBytes)
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: http or https only", s)
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host", s)
	}
	if u.User != nil {
		return fmt.Errorf("credentials in a URL are not allowed (they would be stored with the manifest)")
	}
	return nil
}
