package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/endpoint"
)

// maxKeysPerLease bounds the keys a renter registers for one lease: each
// costs the agent memory and a line on disk, and a deployment issues one
// per end user or service at most in the hundreds.
const maxKeysPerLease = 1024

// keyStore keeps the SHA-256 of each lease's API keys on disk (one file per
// lease, one hash a line), so a restarted agent serves the same keys and a
// revocation outlives a crash: it is written before it is answered.
type keyStore struct {
	dir  string
	mu   sync.Mutex
	keys map[uint64][]ingress.KeyHash
}

// openKeyStore reads dir's key files (made if missing).
func openKeyStore(dir string) (*keyStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	s := &keyStore{dir: dir, keys: map[uint64][]ingress.KeyHash{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		id, err := strconv.ParseUint(e.Name(), 10, 64)
		if err != nil || e.IsDir() {
			continue // a temporary file a crash left, or not ours
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Fields(string(b)) {
			h, err := ingress.ParseKeyHash(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(dir, e.Name()), err)
			}
			s.keys[id] = append(s.keys[id], h)
		}
	}
	return s, nil
}

// add stores h for lease; false when it was there already.
func (s *keyStore) add(lease uint64, h ingress.KeyHash) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	have := s.keys[lease]
	if slices.Contains(have, h) {
		return false, nil
	}
	if len(have) >= maxKeysPerLease {
		return false, fmt.Errorf("%w: lease %d has %d", endpoint.ErrTooManyKeys, lease, len(have))
	}
	next := append(slices.Clone(have), h)
	if err := s.write(lease, next); err != nil {
		return false, err
	}
	s.keys[lease] = next
	return true, nil
}

// revoke removes h from lease's keys (absent: nothing to do).
func (s *keyStore) revoke(lease uint64, h ingress.KeyHash) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := slices.DeleteFunc(slices.Clone(s.keys[lease]), func(k ingress.KeyHash) bool { return k == h })
	if len(next) == len(s.keys[lease]) {
		return nil
	}
	if err := s.write(lease, next); err != nil {
		return err
	}
	s.keys[lease] = next
	return nil
}

// of is lease's keys.
func (s *keyStore) of(lease uint64) []ingress.KeyHash {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.keys[lease])
}

// leases are the leases holding keys.
func (s *keyStore) leases() []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]uint64, 0, len(s.keys))
	for id := range s.keys {
		out = append(out, id)
	}
	return out
}

// drop forgets a lease's keys: it ended.
func (s *keyStore) drop(lease uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.path(lease)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	delete(s.keys, lease)
	return nil
}

func (s *keyStore) path(lease uint64) string {
	return filepath.Join(s.dir, strconv.FormatUint(lease, 10))
}

// write replaces lease's file atomically (a crash leaves the old or the
// new list, never half of one) and durably.
func (s *keyStore) write(lease uint64, keys []ingress.KeyHash) error {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k.String())
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(s.dir, "keys-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.path(lease)); err != nil {
		return err
	}
	d, err := os.Open(s.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// AddKey implements endpoint.Keys: the key is stored, and served at once
// if the lease's service is.
func (d *Daemon) AddKey(lease uint64, keySHA256 string) error {
	h, err := ingress.ParseKeyHash(keySHA256)
	if err != nil {
		return fmt.Errorf("%w: %v", endpoint.ErrBadKeyHash, err)
	}
	d.ing.keyMu.Lock()
	defer d.ing.keyMu.Unlock()
	if _, err := d.ing.keys.add(lease, h); err != nil {
		return err
	}
	if _, ok := d.ing.table.Route(lease); ok {
		return d.ing.table.AddKey(lease, h)
	}
	return nil
}

// RevokeKey implements endpoint.Keys: the key is refused from now on, and
// stays revoked across a restart.
func (d *Daemon) RevokeKey(lease uint64, keySHA256 string) error {
	h, err := ingress.ParseKeyHash(keySHA256)
	if err != nil {
		return fmt.Errorf("%w: %v", endpoint.ErrBadKeyHash, err)
	}
	d.ing.keyMu.Lock()
	defer d.ing.keyMu.Unlock()
	d.ing.table.RevokeKey(lease, h)
	return d.ing.keys.revoke(lease, h)
}
