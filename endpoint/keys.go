package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Keys registers and revokes the API keys a lease's inbound service takes
// (the agent's ingress). Only a key's SHA-256 crosses the wire: the renter
// makes the key, so the provider never holds one it was not shown by a
// caller.
type Keys interface {
	AddKey(leaseID uint64, keySHA256 string) error
	RevokeKey(leaseID uint64, keySHA256 string) error
}

// ErrTooManyKeys is returned by Keys for a lease at its bound of keys.
var ErrTooManyKeys = errors.New("too many keys for the lease")

// ErrBadKeyHash is returned by Keys for a hash that is not 64 hex digits.
var ErrBadKeyHash = errors.New("key_sha256 is not 64 hex digits")

// WithKeys serves key registration for the agent's ingress through k.
func WithKeys(k Keys) Option { return func(s *Server) { s.keys = k } }

// KeyRequest is the body of POST …/keys and …/keys/revoke.
type KeyRequest struct {
	// KeySHA256 is the hex SHA-256 of the key as callers send it
	// ("Authorization: Bearer <key>").
	KeySHA256 string `json:"key_sha256"`
}

// addKey registers a key for a lease that has not ended: it is served as
// soon as (and for as long as) the lease's service is.
func (s *Server) addKey(w http.ResponseWriter, r *http.Request, l Lease, body []byte) {
	s.keyAction(w, l, body, true)
}

// revokeKey revokes a key at once, for a lease in any state.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, l Lease, body []byte) {
	s.keyAction(w, l, body, false)
}

func (s *Server) keyAction(w http.ResponseWriter, l Lease, body []byte, add bool) {
	if s.keys == nil {
		httpError(w, http.StatusNotFound, "this provider runs no ingress")
		return
	}
	var req KeyRequest
	if err := json.Unmarshal(body, &req); err != nil {
		httpError(w, http.StatusBadRequest, "body: %v", err)
		return
	}
	var err error
	if add {
		if l.Status != "LEASE_STATUS_PENDING" && l.Status != "LEASE_STATUS_ACTIVE" {
			httpError(w, http.StatusConflict, "lease %d is %s: keys are added to a PENDING or ACTIVE lease", l.ID, l.Status)
			return
		}
		err = s.keys.AddKey(l.ID, req.KeySHA256)
	} else {
		err = s.keys.RevokeKey(l.ID, req.KeySHA256)
	}
	switch {
	case errors.Is(err, ErrBadKeyHash):
		httpError(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, ErrTooManyKeys):
		httpError(w, http.StatusConflict, "%v", err)
	case err != nil:
		s.log.Warn("endpoint: key change failed", "lease", l.ID, "err", err)
		httpError(w, http.StatusInternalServerError, "the key could not be stored, retry later")
	default:
		s.log.Info("ingress key changed", "lease", l.ID, "added", add, "key_sha256", req.KeySHA256)
		w.WriteHeader(http.StatusNoContent)
	}
}

// AddKey registers the key whose hex SHA-256 is keySHA256 for the lease's
// inbound service.
func (c *Client) AddKey(ctx context.Context, leaseID uint64, keySHA256 string) error {
	return c.keyCall(ctx, fmt.Sprintf("/v1/leases/%d/keys", leaseID), keySHA256)
}

// RevokeKey revokes it: the lease's service refuses it from the answer on.
func (c *Client) RevokeKey(ctx context.Context, leaseID uint64, keySHA256 string) error {
	return c.keyCall(ctx, fmt.Sprintf("/v1/leases/%d/keys/revoke", leaseID), keySHA256)
}

func (c *Client) keyCall(ctx context.Context, path, keySHA256 string) error {
	body, err := json.Marshal(KeyRequest{KeySHA256: keySHA256})
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodPost, path, body)
	return err
}
