package hostcheck

import (
	"os"
	"path/filepath"
	"syscall"
)

// FreeBytes is the space an unprivileged user may still write on dir's
// file system; a directory not made yet is judged by its nearest parent.
func FreeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(ExistingParent(dir), &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// ExistingParent is dir or its nearest existing parent (a fresh agent has
// no state dir yet; the disk it will be on is what matters).
func ExistingParent(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(d); err == nil || d == "/" || d == "." {
			return d
		}
		d = filepath.Dir(d)
	}
}
