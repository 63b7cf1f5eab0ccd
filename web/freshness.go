package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
)

// Every page says how fresh it is: the node's newest block and its age,
// and how far the index has got. A node that cannot be reached, or whose
// newest block is older than MaxLag (a halted chain, a stuck node), gets a
// banner on every page; /healthz fails for those and for an index that
// lags the node by more than MaxLag.

// DefaultMaxLag is how old the node's newest block, or the index behind
// it, may be before the app says it is not current: many block times on
// any network we run (1 s locally, 5 s on a network spread over continents).
const DefaultMaxLag = time.Minute

// headTTL is how long one read of the node's head serves the pages.
const headTTL = time.Second

// headTimeout bounds a read of the head, so a node that hangs slows no page
// by more than this.
const headTimeout = 2 * time.Second

// Head is the newest block a node has.
type Head struct {
	Height int64
	Time   time.Time
}

// NodeHead reads a node's newest block through its gRPC (the SDK's
// CometBFT service, which every node serves).
func NodeHead(conn grpc.ClientConnInterface) func(context.Context) (Head, error) {
	c := cmtservice.NewServiceClient(conn)
	return func(ctx context.Context) (Head, error) {
		res, err := c.GetLatestBlock(ctx, &cmtservice.GetLatestBlockRequest{})
		if err != nil {
			return Head{}, err
		}
		if res.SdkBlock == nil {
			return Head{}, fmt.Errorf("the node returned no block")
		}
		return Head{Height: res.SdkBlock.Header.Height, Time: res.SdkBlock.Header.Time}, nil
	}
}

// Freshness is what the layout shows about the node and the index.
type Freshness struct {
	// Down: the node could not be reached just now (Err says why, as a
	// sentence); Height
	// and Age are then of the last head seen, if any.
	Down bool
	Err  string
	// Stale: the node answers but its newest block is older than MaxLag.
	Stale   bool
	Height  int64
	Age     time.Duration
	Indexed int64
}

// headCache keeps the node's head for headTTL; the last head read stays
// known while the node is down.
type headCache struct {
	read func(context.Context) (Head, error)
	now  func() time.Time

	mu      sync.Mutex
	checked time.Time
	head    Head
	err     error
}

func (c *headCache) get() (Head, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checked.IsZero() || c.now().Sub(c.checked) >= headTTL {
		ctx, cancel := context.WithTimeout(context.Background(), headTimeout)
		h, err := c.read(ctx)
		cancel()
		c.checked, c.err = c.now(), err
		if err == nil {
			c.head = h
		}
	}
	return c.head, c.err
}

// freshness is the layout's view, read at most once per headTTL.
func (s *Server) freshness() Freshness {
	h, err := s.head.get()
	f := Freshness{Height: h.Height}
	if !h.Time.IsZero() {
		f.Age = s.head.now().Sub(h.Time).Truncate(time.Second)
	}
	if err != nil {
		// The banner's sentence: "The node cannot be reached (…)."
		msg := nodeError(err)
		f.Down, f.Err = true, strings.ToUpper(msg[:1])+msg[1:]
	} else {
		f.Stale = f.Age > s.cfg.MaxLag
	}
	// The index is local: a failure to read it is reported by /healthz.
	f.Indexed, _ = s.db.Cursor(context.Background())
	return f
}

// healthz answers 200 only when the node is reachable, its newest block is
// at most MaxLag old and the index is at most MaxLag behind it; otherwise
// 503 with the reason, for a load balancer or a probe to act on.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	fail := func(format string, args ...any) {
		http.Error(w, fmt.Sprintf(format, args...), http.StatusServiceUnavailable)
	}
	ctx, cancel := context.WithTimeout(r.Context(), headTimeout)
	defer cancel()
	head, err := s.head.read(ctx)
	if err != nil {
		fail("node unreachable: %s", nodeError(err))
		return
	}
	now := s.head.now()
	if age := now.Sub(head.Time); age > s.cfg.MaxLag {
		fail("node stale: its newest block %d is %s old (max %s)", head.Height, age.Truncate(time.Second), s.cfg.MaxLag)
		return
	}
	blocks, err := s.db.Blocks(ctx, 1, 0)
	if err != nil {
		fail("index unreadable: %v", err)
		return
	}
	if len(blocks) == 0 {
		fail("index empty: no block indexed yet (the node is at %d)", head.Height)
		return
	}
	if lag := head.Time.Sub(blocks[0].Time); lag > s.cfg.MaxLag {
		fail("index behind: at block %d, %s behind the node's %d (max %s)", blocks[0].Height, lag.Truncate(time.Second), head.Height, s.cfg.MaxLag)
		return
	}
	fmt.Fprintf(w, "ok indexed=%d height=%d\n", blocks[0].Height, head.Height)
}
