package clock

import (
	"testing"
	"time"
)

// Tests may read the wall clock: _test.go files are skipped.
func TestElapsed(t *testing.T) {
	if Elapsed(time.Now()) < 0 {
		t.Fatal("negative")
	}
	go func() {}()
}
