package endpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// MaxBody bounds a request body (a manifest).
const MaxBody = 1 << 20

// Lease is what the endpoint needs of a lease, read from the chain.
type Lease struct {
	ID           uint64
	Renter       string // bech32
	ManifestHash string // hex sha256 of the manifest bytes (x/auction JobSpec)
	Status       string // x/auction status name, e.g. LEASE_STATUS_PENDING
}

// Leases looks leases up on the chain.
type Leases interface {
	Lease(ctx context.Context, id uint64) (Lease, error)
}

// JobStatus is what GET …/status returns.
type JobStatus struct {
	LeaseID uint64 `json:"lease_id"`
	Lease   string `json:"lease_status"`
	Running bool   `json:"running"`
	// Exited is set once the job has ended; ExitCode means something only then.
	Exited   bool   `json:"exited"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`
	// EpochsProven is how many epochs the chain has settled as proven.
	EpochsProven uint64 `json:"epochs_proven"`
	// Preparing says what the agent does before the job starts (fetching
	// its inputs); Refused why the lease's last manifest was refused after
	// it was accepted (a failed fetch). Both are empty once a job runs.
	Preparing string `json:"preparing,omitempty"`
	Refused   string `json:"refused,omitempty"`
}

// Acceptance is the agent's answer to an accepted manifest: the job
// started, or Preparing says what comes first (the job starts after it,
// and the status tells how it went).
type Acceptance struct {
	Preparing string `json:"preparing,omitempty"`
}

// Jobs is the agent's side: it starts a job from an accepted manifest (or
// starts preparing it: fetching inputs can outlast any request) and answers
// for running ones.
type Jobs interface {
	Accept(ctx context.Context, l Lease, m Manifest) (Acceptance, error)
	Status(ctx context.Context, leaseID uint64) (JobStatus, error)
	Logs(leaseID uint64) (io.ReadCloser, error)
	Samples(leaseID, epoch uint64) ([]settlementtypes.Sample, bool)
}

// ErrNoJob is returned by Jobs for a lease the agent runs no job for.
var ErrNoJob = errors.New("no job for this lease")

// Server serves the endpoint.
type Server struct {
	target  Target
	leases  Leases
	jobs    Jobs
	log     *slog.Logger
	now     func() time.Time
	seen    *nonces
	limits  Limits
	sources *buckets
	signers *buckets
	facts   *leaseFacts
	outputs Outputs
	keys    Keys
}

// NewServer returns the endpoint of target's provider on target's chain:
// only requests signed for both are accepted.
func NewServer(target Target, leases Leases, jobs Jobs, log *slog.Logger, opts ...Option) *Server {
	s := &Server{target: target, leases: leases, jobs: jobs, log: log, now: time.Now, seen: newNonces(maxNonces), limits: DefaultLimits()}
	for _, o := range opts {
		o(s)
	}
	l := s.limits
	s.sources = newBuckets(l.IPRate, l.IPBurst, l.MaxTracked)
	s.signers = newBuckets(l.RenterRate, l.RenterBurst, l.MaxTracked)
	s.facts = newLeaseFacts(l.MaxTracked)
	return s
}

// Handler routes the endpoint's requests.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/leases/{id}/manifest", s.authed(s.manifest))
	mux.HandleFunc("GET /v1/leases/{id}/status", s.authed(s.status))
	mux.HandleFunc("GET /v1/leases/{id}/logs", s.authed(s.logs))
	mux.HandleFunc("GET /v1/leases/{id}/epochs/{epoch}/samples", s.authed(s.samples))
	mux.HandleFunc("GET /v1/leases/{id}/outputs", s.authed(s.outputsListing))
	mux.HandleFunc("GET /v1/leases/{id}/outputs/{name...}", s.authed(s.outputFile))
	mux.HandleFunc("POST /v1/leases/{id}/keys", s.authed(s.addKey))
	mux.HandleFunc("POST /v1/leases/{id}/keys/revoke", s.authed(s.revokeKey))
	// Per source before anything is read: it is what bounds throw-away keys.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.sources.allow(sourceKey(r), s.now()) {
			tooMany(w)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func tooMany(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	httpError(w, http.StatusTooManyRequests, "too many requests")
}

type handler func(w http.ResponseWriter, r *http.Request, l Lease, body []byte)

// authed reads the body, checks the renter's signature against the lease
// and burns the nonce before the handler runs.
func (s *Server) authed(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
		if err != nil {
			httpError(w, http.StatusBadRequest, "lease id %q", r.PathValue("id"))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		if err != nil {
			httpError(w, http.StatusRequestEntityTooLarge, "body above %d bytes", MaxBody)
			return
		}
		now := s.now()
		addr, ts, nonce, err := verify(r, body, s.target, now)
		if err != nil {
			httpError(w, http.StatusUnauthorized, "%v", err)
			return
		}
		// The signer's bucket, then what is known of the lease, and only
		// then the chain: a signature costs a verify, not a query.
		if !s.signers.allow(addr.String(), now) {
			tooMany(w)
			return
		}
		renter, absent := s.facts.get(id, now)
		if absent {
			httpError(w, http.StatusNotFound, "lease %d not found at this provider", id)
			return
		}
		if renter != "" && renter != addr.String() {
			httpError(w, http.StatusForbidden, "%v: %s", ErrNotRenter, addr)
			return
		}
		l, err := s.leases.Lease(r.Context(), id)
		if errors.Is(err, ErrNoJob) {
			s.facts.put(leaseFact{id: id, absentUntil: now.Add(s.limits.NotFoundTTL)})
			httpError(w, http.StatusNotFound, "lease %d not found at this provider", id)
			return
		}
		if err != nil {
			// The chain's error may name internal hosts: it goes to the log only.
			s.log.Warn("endpoint: lease lookup failed", "lease", id, "err", err)
			httpError(w, http.StatusServiceUnavailable, "lease lookup failed, retry later")
			return
		}
		s.facts.put(leaseFact{id: id, renter: l.Renter})
		if addr.String() != l.Renter {
			httpError(w, http.StatusForbidden, "%v: %s", ErrNotRenter, addr)
			return
		}
		fresh, err := s.seen.use(l.Renter+"/"+nonce, time.UnixMilli(ts), now)
		if err != nil {
			httpError(w, http.StatusServiceUnavailable, "%v", err)
			return
		}
		if !fresh {
			httpError(w, http.StatusConflict, "%v", ErrReplayed)
			return
		}
		h(w, r, l, body)
	}
}

func (s *Server) manifest(w http.ResponseWriter, r *http.Request, l Lease, body []byte) {
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != l.ManifestHash {
		httpError(w, http.StatusBadRequest, "manifest sha256 %x is not the job's manifest_hash %s", sum, l.ManifestHash)
		return
	}
	if l.Status != "LEASE_STATUS_PENDING" {
		httpError(w, http.StatusConflict, "lease %d is %s: a manifest starts a PENDING lease", l.ID, l.Status)
		return
	}
	m, err := ParseManifest(body)
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	acc, err := s.jobs.Accept(r.Context(), l, m)
	if err != nil {
		httpError(w, http.StatusUnprocessableEntity, "%v", err)
		return
	}
	// The manifest may carry secrets: log its hash, never its content.
	s.log.Info("manifest accepted", "lease", l.ID, "manifest_sha256", l.ManifestHash, "preparing", acc.Preparing)
	writeJSON(w, http.StatusAccepted, ManifestAccepted{LeaseID: l.ID, Accepted: true, Preparing: acc.Preparing})
}

// ManifestAccepted is what POST …/manifest answers (202).
type ManifestAccepted struct {
	LeaseID   uint64 `json:"lease_id"`
	Accepted  bool   `json:"accepted"`
	Preparing string `json:"preparing,omitempty"`
}

func (s *Server) status(w http.ResponseWriter, r *http.Request, l Lease, _ []byte) {
	st, err := s.jobs.Status(r.Context(), l.ID)
	if errors.Is(err, ErrNoJob) {
		st = JobStatus{LeaseID: l.ID, Lease: l.Status}
	} else if err != nil {
		httpError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// SampleWithPath is one sample and its audit path, as a renter checks it
// against the proof's samples_root (or reports it as fraud).
type SampleWithPath struct {
	Sample    settlementtypes.Sample `json:"sample"`
	LeafIndex uint64                 `json:"leaf_index"`
	Path      [][]byte               `json:"path"`
}

// SamplesResponse is an epoch's samples in canonical order.
type SamplesResponse struct {
	LeaseID     uint64           `json:"lease_id"`
	Epoch       uint64           `json:"epoch"`
	SamplesRoot []byte           `json:"samples_root"`
	Samples     []SampleWithPath `json:"samples"`
}

func (s *Server) samples(w http.ResponseWriter, r *http.Request, l Lease, _ []byte) {
	epoch, err := strconv.ParseUint(r.PathValue("epoch"), 10, 64)
	if err != nil {
		httpError(w, http.StatusBadRequest, "epoch %q", r.PathValue("epoch"))
		return
	}
	sorted, ok := s.jobs.Samples(l.ID, epoch)
	if !ok {
		httpError(w, http.StatusNotFound, "no samples of lease %d epoch %d", l.ID, epoch)
		return
	}
	leaves, err := settlementtypes.SampleLeaves(sorted)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	// Every path in one pass: a path per leaf is quadratic in the epoch's samples.
	root, paths := settlementtypes.MerklePaths(leaves)
	out := SamplesResponse{LeaseID: l.ID, Epoch: epoch, SamplesRoot: root, Samples: make([]SampleWithPath, len(sorted))}
	for i, smp := range sorted {
		out.Samples[i] = SampleWithPath{Sample: smp, LeafIndex: uint64(i), Path: paths[i]}
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, map[string]string{"error": fmt.Sprintf(format, args...)})
}
