package chainclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	coretypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/gorilla/websocket"
)

// headerStream is one websocket subscription to new block headers. The
// follower owns its whole life: CometBFT's WSClient reconnects by itself
// and can send on a closed channel when it is stopped mid-reconnect (a
// panic seen when a node restarts), so the agent uses a plain connection
// and does its own reconnecting and catching up.
type headerStream struct {
	conn    *websocket.Conn
	headers chan cmttypes.Header
	errc    chan error
}

// wsURL turns an RPC address (tcp://, http://, https://) into its
// websocket endpoint.
func wsURL(remote string) (string, error) {
	u, err := url.Parse(remote)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "tcp", "http", "":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	case "ws", "wss":
	default:
		return "", fmt.Errorf("rpc address %q: unsupported scheme %s", remote, u.Scheme)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/websocket"
	return u.String(), nil
}

// subscribeHeaders dials the node and subscribes; headers arrive on the
// stream's channel until the connection breaks (its error on errc) or
// close is called.
func subscribeHeaders(ctx context.Context, remote string) (*headerStream, error) {
	addr, err := wsURL(remote)
	if err != nil {
		return nil, err
	}
	dialer := websocket.Dialer{HandshakeTimeout: rpcTimeout}
	conn, _, err := dialer.DialContext(ctx, addr, nil)
	if err != nil {
		return nil, err
	}
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "subscribe", "params": map[string]any{"query": followQuery}}
	_ = conn.SetWriteDeadline(time.Now().Add(rpcTimeout))
	if err := conn.WriteJSON(req); err != nil {
		conn.Close()
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	s := &headerStream{conn: conn, headers: make(chan cmttypes.Header, followBuffer), errc: make(chan error, 1)}
	go s.read()
	return s, nil
}

// rpcMessage is a JSON-RPC response or event notification.
type rpcMessage struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

func (s *headerStream) read() {
	defer close(s.headers)
	for {
		_, data, err := s.conn.ReadMessage()
		if err != nil {
			s.errc <- err
			return
		}
		var msg rpcMessage
		if err := json.Unmarshal(data, &msg); err != nil {
			s.errc <- fmt.Errorf("websocket message: %w", err)
			return
		}
		if msg.Error != nil {
			s.errc <- fmt.Errorf("websocket: %s %s", msg.Error.Message, msg.Error.Data)
			return
		}
		var ev coretypes.ResultEvent
		if len(msg.Result) == 0 || string(msg.Result) == "{}" {
			continue // the subscription's acknowledgement
		}
		if err := cmtjson.Unmarshal(msg.Result, &ev); err != nil {
			s.errc <- fmt.Errorf("websocket event: %w", err)
			return
		}
		data2, ok := ev.Data.(cmttypes.EventDataNewBlockHeader)
		if !ok {
			continue
		}
		select {
		case s.headers <- data2.Header:
		default:
			// The follower is behind: dropping is safe, catch-up by query
			// fills every gap.
		}
	}
}

func (s *headerStream) close() { _ = s.conn.Close() }

// BlockStream is a subscription to the node's new block headers over a
// plain websocket, for a reader that only needs to know a block came (the
// web app's indexer): headers arrive on C, some dropped when the reader is
// behind, and C is closed when the connection breaks or Close is called.
// It exists so that nothing here uses CometBFT's WSClient (headerStream).
type BlockStream struct {
	s *headerStream
	C <-chan cmttypes.Header
}

// SubscribeBlocks dials remote's websocket and subscribes to new blocks.
func SubscribeBlocks(ctx context.Context, remote string) (*BlockStream, error) {
	s, err := subscribeHeaders(ctx, remote)
	if err != nil {
		return nil, err
	}
	return &BlockStream{s: s, C: s.headers}, nil
}

// Close ends the subscription; C is closed soon after.
func (b *BlockStream) Close() { b.s.close() }
