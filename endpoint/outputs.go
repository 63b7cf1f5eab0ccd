package endpoint

import (
	"errors"
	"net/http"
	"os"
	"time"
)

// Outputs is the agent's store of leases' outputs (agent/jobdata.Store),
// returning the errors below.
type Outputs interface {
	// Listing is a lease's signed final listing.
	Listing(leaseID uint64) (Listing, error)
	// Open opens a listed file, inside the lease's output directory only
	// and never through a symbolic link.
	Open(leaseID uint64, name string) (*os.File, File, error)
}

// Errors of a lease's outputs, as Outputs returns them (the answers'
// statuses follow from them).
var (
	// ErrNoOutputs: the agent keeps no data for the lease (none was
	// prepared, or it was deleted at its retention's end).
	ErrNoOutputs = errors.New("no outputs for this lease")
	// ErrNotFinal: the job has not ended, so there is no listing yet.
	ErrNotFinal = errors.New("the job has not ended: outputs are listed when it does")
	// ErrNotListed: the name is not a file of the lease's listing.
	ErrNotListed = errors.New("not a file of the output listing")
)

// WithOutputs serves leases' outputs from o.
func WithOutputs(o Outputs) Option { return func(s *Server) { s.outputs = o } }

// HeaderSHA256 is the sha256 of a whole output file, sent with every
// download (also as its ETag, so a resumed download's If-Range matches
// the same content only).
const HeaderSHA256 = "X-Idlegpu-Sha256"

// downloadWriteGrace is how long one write of a download may take: the
// server's write timeout bounds small answers, a download moves its
// deadline on with every write, so a slow but moving link finishes.
const downloadWriteGrace = time.Minute

func (s *Server) outputsListing(w http.ResponseWriter, _ *http.Request, l Lease, _ []byte) {
	if s.outputs == nil {
		httpError(w, http.StatusNotFound, "this agent keeps no outputs")
		return
	}
	ls, err := s.outputs.Listing(l.ID)
	if err != nil {
		s.outputsError(w, l.ID, err)
		return
	}
	writeJSON(w, http.StatusOK, ls)
}

func (s *Server) outputFile(w http.ResponseWriter, r *http.Request, l Lease, _ []byte) {
	if s.outputs == nil {
		httpError(w, http.StatusNotFound, "this agent keeps no outputs")
		return
	}
	f, file, err := s.outputs.Open(l.ID, r.PathValue("name"))
	if err != nil {
		s.outputsError(w, l.ID, err)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", `"`+file.SHA256+`"`)
	w.Header().Set(HeaderSHA256, file.SHA256)
	// ServeContent answers Range and If-Range: a download resumes.
	http.ServeContent(&movingDeadline{ResponseWriter: w, rc: http.NewResponseController(w)}, r, "", time.Time{}, f)
}

func (s *Server) outputsError(w http.ResponseWriter, leaseID uint64, err error) {
	switch {
	case errors.Is(err, ErrNotFinal):
		httpError(w, http.StatusConflict, "lease %d: %v", leaseID, err)
	case errors.Is(err, ErrNoOutputs), errors.Is(err, ErrNotListed):
		httpError(w, http.StatusNotFound, "lease %d: %v", leaseID, err)
	default:
		// Paths on the agent's disk go to the log only.
		s.log.Warn("endpoint: reading outputs", "lease", leaseID, "err", err)
		httpError(w, http.StatusInternalServerError, "reading the outputs failed")
	}
}

// movingDeadline moves the connection's write deadline on before each write.
type movingDeadline struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (m *movingDeadline) Write(p []byte) (int, error) {
	_ = m.rc.SetWriteDeadline(time.Now().Add(downloadWriteGrace))
	return m.ResponseWriter.Write(p)
}
