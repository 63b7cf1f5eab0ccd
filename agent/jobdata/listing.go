package jobdata

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/idlegpu/idlegpu/endpoint"
)

// listFiles hashes every regular file under root, sorted by name, never
// following a symbolic link: a job could point one at the agent's own files.
func listFiles(root *os.Root) ([]endpoint.File, int, error) {
	var files []endpoint.File
	skipped := 0
	err := fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() || !utf8.ValidString(name) || len(files) >= endpoint.MaxOutputFiles {
			skipped++
			return nil
		}
		f, err := openRegular(root, name)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		n, err := io.Copy(h, f)
		if err != nil {
			return err
		}
		files = append(files, endpoint.File{Name: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
		return nil
	})
	// WalkDir's order is per directory ("a/b" before "a.txt"); the
	// listing's is the names' bytes.
	slices.SortFunc(files, func(a, b endpoint.File) int { return strings.Compare(a.Name, b.Name) })
	return files, skipped, err
}

// openRegular opens name under root only if it is a regular file itself,
// not a link to one: os.Root keeps it inside root, and comparing the open
// file with the name's own entry catches a link swapped in meanwhile.
func openRegular(root *os.Root, name string) (*os.File, error) {
	lfi, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !lfi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !os.SameFile(fi, lfi) {
		f.Close()
		return nil, fmt.Errorf("%s changed while it was opened", name)
	}
	return f, nil
}
