// Package web is the idlegpu web app: pages for the market, jobs and leases,
// providers and the network, rendered on the server from the node's gRPC
// (current state) and the indexer's database (history), and the relayer
// endpoint that submits wallet-signed bids. Every page works without
// JavaScript; only the wallet needs it. See cmd/idlegpu-web/README.md.
package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/indexer"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what the server needs besides its connections.
type Config struct {
	// ChainID is the idlegpu chain id bids are signed for.
	ChainID string
	// RelayerFee is what the relayer asks per signed message, in the
	// price's base units; it takes min(this, the signer's max_relayer_fee).
	RelayerFee sdkmath.Int
	// Log receives request errors and relayed messages.
	Log *slog.Logger
	// Head reads the node's newest block (default: NodeHead over the
	// server's connection).
	Head func(context.Context) (Head, error)
	// MaxLag is how old the node's newest block, and the index behind it,
	// may be before pages say so and /healthz fails (default DefaultMaxLag).
	MaxLag time.Duration
}

// Server serves the app. It is safe for concurrent use.
type Server struct {
	cfg     Config
	conn    grpc.ClientConnInterface
	db      *indexer.DB
	relayer *chainclient.Client
	units   *units.Units
	pages   map[string]*template.Template
	market  *marketCache
	head    *headCache
	mux     *http.ServeMux
}

// New builds the server over a node's gRPC connection and the index. With a
// nil relayer the pages still work and the relay endpoints say relaying is
// off. It reads the chain's denom metadata once.
func New(ctx context.Context, cfg Config, conn grpc.ClientConnInterface, db *indexer.DB, relayer *chainclient.Client) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.RelayerFee.IsNil() {
		cfg.RelayerFee = sdkmath.ZeroInt()
	}
	if cfg.Head == nil {
		cfg.Head = NodeHead(conn)
	}
	if cfg.MaxLag <= 0 {
		cfg.MaxLag = DefaultMaxLag
	}
	metas, err := banktypes.NewQueryClient(conn).DenomsMetadata(ctx, &banktypes.QueryDenomsMetadataRequest{})
	if err != nil {
		return nil, fmt.Errorf("reading the chain's denom metadata: %w", err)
	}
	s := &Server{
		cfg: cfg, conn: conn, db: db, relayer: relayer,
		units: units.NewUnits(metas.Metadatas),
		head:  &headCache{read: cfg.Head, now: time.Now},
	}
	s.market = &marketCache{conn: conn, db: db, now: time.Now, log: func(err error) { cfg.Log.Warn("reading the market", "err", err) }}
	// The first read of every offer is done now, not by the first visitor.
	if _, err := s.market.get(ctx); err != nil {
		return nil, fmt.Errorf("reading the market: %w", err)
	}
	if s.pages, err = parsePages(s.funcs()); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// ServeHTTP serves the app.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) routes() {
	static, _ := fs.Sub(staticFS, "static")
	m := http.NewServeMux()
	m.Handle("GET /static/", cacheForever(noListing(http.StripPrefix("/static/", http.FileServerFS(static)))))
	m.HandleFunc("GET /{$}", s.page(s.marketPage))
	m.HandleFunc("GET /jobs", s.page(s.jobsPage))
	m.HandleFunc("GET /jobs/{id}", s.page(s.jobPage))
	m.HandleFunc("GET /leases/{id}", s.page(s.leasePage))
	m.HandleFunc("GET /providers", s.page(s.providersPage))
	m.HandleFunc("GET /providers/{addr}", s.page(s.providerPage))
	m.HandleFunc("GET /network", s.page(s.networkPage))
	m.HandleFunc("GET /post", s.page(s.postPage))
	m.HandleFunc("GET /withdraw", s.page(s.withdrawPage))
	m.HandleFunc("POST /api/prepare/job", s.api(s.prepareJob))
	m.HandleFunc("POST /api/prepare/cancel", s.api(s.prepareCancel))
	m.HandleFunc("POST /api/prepare/close", s.api(s.prepareClose))
	m.HandleFunc("POST /api/prepare/withdraw", s.api(s.prepareWithdraw))
	m.HandleFunc("POST /api/relay/job", s.api(s.relayJob))
	m.HandleFunc("POST /api/relay/cancel", s.api(s.relayCancel))
	m.HandleFunc("POST /api/relay/close", s.api(s.relayClose))
	m.HandleFunc("POST /api/relay/withdraw", s.api(s.relayWithdraw))
	m.HandleFunc("POST /api/endpoint/prepare", s.api(s.prepareEndpoint))
	m.HandleFunc("POST /api/endpoint/forward", s.api(s.forwardEndpoint))
	m.HandleFunc("GET /healthz", s.healthz)
	// Anything else is a page of ours saying so, not the mux's plain text.
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.errorPage(w, r, fmt.Errorf("no page %s: %w", r.URL.Path, errNotFound))
	})
	s.mux = m
}

// noListing: the static directory is not a page; only its files are served.
func noListing(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// cacheForever: static assets are embedded, so they change only with the
// binary; the page links them with the binary's version.
func cacheForever(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		h.ServeHTTP(w, r)
	})
}

// pageFunc fills a page: its template name and data, or an error.
type pageFunc func(r *http.Request) (name string, data any, err error)

// errNotFound is a page about something the chain does not have.
var errNotFound = errors.New("not found")

// errBadRequest wraps input the page cannot read; cause, when set, is the
// typed error it reports.
type errBadRequest struct {
	msg   string
	cause error
}

func (e errBadRequest) Error() string { return e.msg }
func (e errBadRequest) Unwrap() error { return e.cause }

func badRequest(format string, args ...any) error {
	return errBadRequest{msg: fmt.Sprintf(format, args...)}
}

func (s *Server) page(f pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, data, err := f(r)
		if err != nil {
			s.errorPage(w, r, err)
			return
		}
		s.render(w, http.StatusOK, name, data)
	}
}

func (s *Server) render(w http.ResponseWriter, code int, name string, data any) {
	t, ok := s.pages[name]
	if !ok {
		http.Error(w, "no page "+name, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// No other site may frame the app (a framed wallet button could be
	// clicked through an overlay).
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	if err := t.ExecuteTemplate(w, "layout", data); err != nil {
		s.cfg.Log.Error("render", "page", name, "err", err)
	}
}

// errorPage says what went wrong in words: a missing object is 404, bad
// input 400, a node that cannot answer 502.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	code := http.StatusInternalServerError
	var bad errBadRequest
	switch {
	case errors.Is(err, errNotFound) || status.Code(err) == codes.NotFound:
		code = http.StatusNotFound
	case errors.As(err, &bad) || status.Code(err) == codes.InvalidArgument:
		code = http.StatusBadRequest
	case status.Code(err) == codes.Unavailable || errors.Is(err, context.DeadlineExceeded):
		code = http.StatusBadGateway
		err = fmt.Errorf("this page needs the node's current state, and %s", nodeError(err))
	}
	if code >= 500 {
		s.cfg.Log.Error("page", "path", r.URL.Path, "err", err)
	}
	s.render(w, code, "error", map[string]any{"Title": http.StatusText(code), "Code": code, "Message": err.Error()})
}

// nodeError says in words why the node did not answer, without the gRPC
// transport's internals.
func nodeError(err error) string {
	switch {
	case status.Code(err) == codes.Unavailable:
		return "the node cannot be reached (it may be stopped or restarting)"
	case errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
		return "the node did not answer in time"
	}
	return "the node failed: " + status.Convert(err).Message()
}
