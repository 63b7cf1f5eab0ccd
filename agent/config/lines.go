package config

import (
	"bufio"
	"os"
	"strings"
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
