package jobdata

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"
)

// Cache keeps fetched inputs content-addressed (<dir>/<sha256>), shared by
// every lease, within a size cap: past it, the least recently used files
// no fetch is placing right now are removed. A file's modification time is
// its last use, so the order survives a restart.
type Cache struct {
	dir string
	max int64

	mu      sync.Mutex
	entries map[string]*entry
	total   int64
	// inflight is one download per sha256: a second lease waits for it.
	inflight map[string]chan struct{}
}

type entry struct {
	size int64
	used time.Time
	pins int
}

var shaName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// OpenCache opens (creating) the cache at dir, capped at max bytes; the
// partial downloads a crash left are removed.
func OpenCache(dir string, max int64) (*Cache, error) {
	if max <= 0 {
		return nil, fmt.Errorf("input cache size must be positive, got %d", max)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	c := &Cache{dir: dir, max: max, entries: map[string]*entry{}, inflight: map[string]chan struct{}{}}
	for _, e := range ents {
		if !shaName.MatchString(e.Name()) || !e.Type().IsRegular() {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		c.entries[e.Name()] = &entry{size: fi.Size(), used: fi.ModTime()}
		c.total += fi.Size()
	}
	c.mu.Lock()
	c.evictLocked()
	c.mu.Unlock()
	return c, nil
}

// Bytes is the cache's size now.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Has reports whether sha is cached.
func (c *Cache) Has(sha string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[sha] != nil
}

// claim pins a cached sha for placing (true), or makes the caller its one
// downloader (false, nil); with another download under way it waits for it
// and looks again.
func (c *Cache) claim(sha string, done <-chan struct{}) (cached bool, err error) {
	for {
		c.mu.Lock()
		if e := c.entries[sha]; e != nil {
			e.pins++
			c.mu.Unlock()
			return true, nil
		}
		wait, busy := c.inflight[sha]
		if !busy {
			c.inflight[sha] = make(chan struct{})
			c.mu.Unlock()
			return false, nil
		}
		c.mu.Unlock()
		select {
		case <-wait:
		case <-done:
			return false, errors.New("gave up waiting for another lease's download of the same input")
		}
	}
}

// finishDownload ends the caller's download of sha: with tmp (a verified
// complete file) it becomes the cached copy, pinned for the caller; with
// tmp empty the download failed. Waiters are released either way.
func (c *Cache) finishDownload(sha, tmp string, size int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() {
		close(c.inflight[sha])
		delete(c.inflight, sha)
	}()
	if tmp == "" {
		return nil
	}
	if err := os.Rename(tmp, c.path(sha)); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	c.entries[sha] = &entry{size: size, used: time.Now(), pins: 1}
	c.total += size
	c.evictLocked()
	return nil
}

// release unpins sha after placing it, marking it used now.
func (c *Cache) release(sha string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[sha]
	if e == nil {
		return
	}
	e.pins--
	e.used = time.Now()
	_ = os.Chtimes(c.path(sha), e.used, e.used)
	c.evictLocked()
}

// place puts the cached sha at dst: a hard link (no copy, no extra space),
// or a copy where dst is on another file system.
func (c *Cache) place(sha, dst string) error {
	src := c.path(sha)
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func (c *Cache) path(sha string) string { return filepath.Join(c.dir, sha) }

// evictLocked removes unpinned files, least recently used first, until
// the cache fits its cap (pinned files may keep it above for a while).
func (c *Cache) evictLocked() {
	if c.total <= c.max {
		return
	}
	shas := make([]string, 0, len(c.entries))
	for sha := range c.entries {
		shas = append(shas, sha)
	}
	sort.Slice(shas, func(i, j int) bool { return c.entries[shas[i]].used.Before(c.entries[shas[j]].used) })
	for _, sha := range shas {
		if c.total <= c.max {
			return
		}
		e := c.entries[sha]
		if e.pins > 0 {
			continue
		}
		if err := os.Remove(c.path(sha)); err != nil && !os.IsNotExist(err) {
			continue
		}
		c.total -= e.size
		delete(c.entries, sha)
	}
}
