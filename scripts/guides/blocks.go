// Package guides finds the command blocks of README.md and docs/ that are
// marked as tested, so a test can run them as a newcomer would, exactly as
// written. A block is marked by the comment line `<!-- guide-test: NAME -->`
// directly above its ```sh fence; NAME is the journey it belongs to (the
// renter's, the provider's), and a journey's blocks run in one shell, in the
// order of the files given and of the blocks in each file.
package guides

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Block is one marked command block.
type Block struct {
	File    string // as given to Parse
	Line    int    // of the fence, 1-based
	Journey string
	Text    string // the block's lines, without the fences
}

// marker is a block's mark; anything else that looks like one is an error,
// so a typo cannot silently drop a block from its journey.
var (
	marker     = regexp.MustCompile(`^<!-- guide-test: ([a-z][a-z0-9-]*) -->$`)
	nearMarker = regexp.MustCompile(`guide-test`)
)

// Parse returns the marked blocks of one markdown file.
func Parse(file string, src []byte) ([]Block, error) {
	var out []Block
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line, pending, pendingLine := 0, "", 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if m := marker.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
			if pending != "" {
				return nil, fmt.Errorf("%s:%d: a guide-test mark with no ```sh block under it", file, pendingLine)
			}
			pending, pendingLine = m[1], line
			continue
		}
		if nearMarker.MatchString(text) && strings.Contains(text, "<!--") {
			return nil, fmt.Errorf("%s:%d: malformed guide-test mark %q (want <!-- guide-test: NAME -->)", file, line, text)
		}
		if pending == "" {
			continue
		}
		if strings.TrimSpace(text) != "```sh" {
			return nil, fmt.Errorf("%s:%d: a guide-test mark must sit directly above a ```sh fence", file, pendingLine)
		}
		b := Block{File: file, Line: line, Journey: pending}
		var body []string
		closed := false
		for sc.Scan() {
			line++
			if strings.TrimSpace(sc.Text()) == "```" {
				closed = true
				break
			}
			body = append(body, sc.Text())
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the block is not closed", file, b.Line)
		}
		b.Text = strings.Join(body, "\n")
		out = append(out, b)
		pending = ""
	}
	if pending != "" {
		return nil, fmt.Errorf("%s:%d: a guide-test mark with no ```sh block under it", file, pendingLine)
	}
	return out, sc.Err()
}

// Journey returns the blocks of one journey across files, in order.
func Journey(name string, files ...string) ([]Block, error) {
	var out []Block
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		blocks, err := Parse(f, src)
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			if b.Journey == name {
				out = append(out, b)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("journey %q has no marked block in %s", name, strings.Join(files, ", "))
	}
	return out, nil
}

// Script is a journey as one bash script: it stops at the first command
// that fails, and before each block it prints the block's place on stderr
// (`guide-block FILE:LINE`), so a failure names the block that broke.
func Script(blocks []Block) string {
	var sb strings.Builder
	sb.WriteString("set -euo pipefail\n")
	for _, b := range blocks {
		fmt.Fprintf(&sb, "echo 'guide-block %s:%d' >&2\n%s\n", b.File, b.Line, b.Text)
	}
	return sb.String()
}

// FailedBlock names the block a script's output shows it stopped in.
func FailedBlock(output string) string {
	i := strings.LastIndex(output, "guide-block ")
	if i < 0 {
		return "(before the first block)"
	}
	rest := output[i+len("guide-block "):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
