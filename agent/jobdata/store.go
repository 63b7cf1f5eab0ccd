package jobdata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/agent/state"
	"github.com/idlegpu/idlegpu/endpoint"
)

// Config is where a lease's data lives and how much of it is kept.
type Config struct {
	// Dir holds each lease's inputs, output and listing (leases/lease-<id>).
	Dir string
	// CacheDir holds fetched inputs by sha256; CacheBytes caps it.
	CacheDir   string
	CacheBytes int64
	// LeaseInputBytes caps what one lease's inputs may add up to.
	LeaseInputBytes int64
	// Retention is how long outputs are kept after the lease ended.
	Retention time.Duration
	// AllowPrivateNetworks lets inputs come from loopback and private
	// addresses (development and tests only).
	AllowPrivateNetworks bool
}

// Identity is whom listings are signed for: a provider on a chain.
type Identity struct {
	ChainID, Provider string
}

// Store keeps every lease's data under Config.Dir.
type Store struct {
	cfg   Config
	id    Identity
	sign  endpoint.KeySigner
	fetch *Fetcher
}

// Open opens the store, creating its directories.
func Open(cfg Config, id Identity, sign endpoint.KeySigner) (*Store, error) {
	if cfg.LeaseInputBytes <= 0 || cfg.Retention <= 0 {
		return nil, fmt.Errorf("job data: the per-lease input cap and the retention must be positive")
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "leases"), 0o755); err != nil {
		return nil, err
	}
	cache, err := OpenCache(cfg.CacheDir, cfg.CacheBytes)
	if err != nil {
		return nil, err
	}
	return &Store{cfg: cfg, id: id, sign: sign, fetch: NewFetcher(cache, cfg.AllowPrivateNetworks)}, nil
}

// Retention is how long outputs are kept after their lease ended.
func (s *Store) Retention() time.Duration { return s.cfg.Retention }

func (s *Store) leaseDir(id uint64) string {
	return filepath.Join(s.cfg.Dir, "leases", fmt.Sprintf("lease-%d", id))
}

// Prepare makes a lease's directories, fetches its inputs into them (each
// checked against its sha256, together within LeaseInputBytes) and returns
// the job's mounts: the inputs read-only at endpoint.InputsDir, the output directory
// writable by any user at endpoint.OutputDir. Data of an earlier try is replaced.
func (s *Store) Prepare(ctx context.Context, leaseID uint64, inputs []endpoint.Input) ([]runner.Mount, error) {
	if err := endpoint.ValidateInputs(inputs); err != nil {
		return nil, err
	}
	dir := s.leaseDir(leaseID)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	in, out := filepath.Join(dir, "inputs"), filepath.Join(dir, "output")
	for _, d := range []string{dir, in, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	// The job runs as an unprivileged user of its own: the mode, not the
	// owner, lets it write (umask would take the bits off at Mkdir).
	if err := os.Chmod(out, 0o777); err != nil {
		return nil, err
	}
	budget := s.cfg.LeaseInputBytes
	for _, x := range inputs {
		dst := filepath.Join(in, filepath.FromSlash(x.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		n, err := s.fetch.Fetch(ctx, x.URL, x.SHA256, dst, budget)
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("input %s: %w", x.Path, err)
		}
		budget -= n
	}
	mounts := []runner.Mount{{Source: out, Target: endpoint.OutputDir}}
	if len(inputs) > 0 {
		mounts = append([]runner.Mount{{Source: in, Target: endpoint.InputsDir, ReadOnly: true}}, mounts...)
	}
	return mounts, nil
}

// Discard removes a lease's data at once (its job did not start).
func (s *Store) Discard(leaseID uint64) error { return os.RemoveAll(s.leaseDir(leaseID)) }

// Finalise lists and signs a lease's outputs once its job has ended, and
// frees its inputs (the cache keeps them). It is idempotent: a lease
// finalised before gets its listing back. endpoint.ErrNoOutputs when the lease has
// no data here.
func (s *Store) Finalise(leaseID uint64, endedAt time.Time) (endpoint.Listing, error) {
	if l, err := s.Listing(leaseID); !errors.Is(err, endpoint.ErrNotFinal) {
		return l, err
	}
	dir := s.leaseDir(leaseID)
	if err := os.RemoveAll(filepath.Join(dir, "inputs")); err != nil {
		return endpoint.Listing{}, err
	}
	root, err := os.OpenRoot(filepath.Join(dir, "output"))
	if err != nil {
		return endpoint.Listing{}, err
	}
	defer root.Close()
	files, skipped, err := listFiles(root)
	if err != nil {
		return endpoint.Listing{}, fmt.Errorf("list outputs of lease %d: %w", leaseID, err)
	}
	endedAt = endedAt.UTC().Truncate(time.Millisecond)
	l := endpoint.Listing{ChainID: s.id.ChainID, Provider: s.id.Provider, LeaseID: leaseID, EndedAt: endedAt,
		DeleteAt: endedAt.Add(s.cfg.Retention), Files: files, Skipped: skipped}
	if l.Files == nil {
		l.Files = []endpoint.File{}
	}
	if err := l.Sign(s.sign); err != nil {
		return endpoint.Listing{}, fmt.Errorf("sign the output listing of lease %d: %w", leaseID, err)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return endpoint.Listing{}, err
	}
	return l, state.WriteFileAtomic(filepath.Join(dir, "listing.json"), b, 0o644)
}

// Listing is a lease's signed output listing.
func (s *Store) Listing(leaseID uint64) (endpoint.Listing, error) {
	dir := s.leaseDir(leaseID)
	b, err := os.ReadFile(filepath.Join(dir, "listing.json"))
	if os.IsNotExist(err) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return endpoint.Listing{}, endpoint.ErrNoOutputs
		}
		return endpoint.Listing{}, endpoint.ErrNotFinal
	}
	if err != nil {
		return endpoint.Listing{}, err
	}
	var l endpoint.Listing
	return l, json.Unmarshal(b, &l)
}

// Open opens a listed output file for reading, never through a symbolic
// link and never outside the lease's output directory.
func (s *Store) Open(leaseID uint64, name string) (*os.File, endpoint.File, error) {
	if err := endpoint.ValidPath(name); err != nil {
		return nil, endpoint.File{}, fmt.Errorf("%w: %v", endpoint.ErrNotListed, err)
	}
	l, err := s.Listing(leaseID)
	if err != nil {
		return nil, endpoint.File{}, err
	}
	want, ok := l.File(name)
	if !ok {
		return nil, endpoint.File{}, fmt.Errorf("%w: %q", endpoint.ErrNotListed, name)
	}
	root, err := os.OpenRoot(filepath.Join(s.leaseDir(leaseID), "output"))
	if err != nil {
		return nil, endpoint.File{}, err
	}
	defer root.Close()
	f, err := openRegular(root, name)
	if err != nil {
		return nil, endpoint.File{}, err
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != want.Size {
		f.Close()
		return nil, endpoint.File{}, fmt.Errorf("output %q no longer matches its listing", name)
	}
	return f, want, nil
}
