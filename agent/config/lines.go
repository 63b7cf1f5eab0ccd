package config

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// PriceLine is the line of policy.prices[index].key in the file at path (0:
// not found), so an error in a price points at it.
func PriceLine(path string, index int, key string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	table := -1
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "[[policy.prices]]":
			table++
		case strings.HasPrefix(line, "["):
			if table >= 0 && table != index {
				continue
			}
			if table == index {
				return 0
			}
		case table == index:
			if k, _, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == key {
				return n
			}
		}
	}
	return 0
}

// outOfRange is go-toml's message for an integer that does not fit its
// field; it names neither the key nor the line.
var outOfRange = regexp.MustCompile(`number (\S+) does not fit in an? (\w+)`)

// decodeErrorAt points a decoding error at its key and line in the file's
// text b: go-toml's DecodeError knows its position; an out-of-range number
// is found by its value (the first key set to it).
func decodeErrorAt(path string, b []byte, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return fmt.Errorf("%s:%d: %w", path, row, err)
	}
	m := outOfRange.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	table := ""
	for n, raw := range strings.Split(string(b), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			table = strings.Trim(line, "[] ")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, "#")
		if strings.TrimSpace(v) == m[1] {
			key := strings.TrimSpace(k)
			if table != "" {
				key = table + "." + key
			}
			return fmt.Errorf("%s:%d: %s = %s does not fit in %s", path, n+1, key, m[1], m[2])
		}
	}
	return fmt.Errorf("%s: %w", path, err)
}
