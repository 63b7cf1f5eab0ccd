package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/idlegpu/idlegpu/agent/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// The renter talks to its provider's endpoint (send the manifest, read the
// job's logs) with requests its wallet signs (EIP-191 personal_sign over
// endpoint.Request.WalletText). A browser cannot pin the provider's
// self-signed certificate to the hash registered on chain, so the app makes
// the TLS connection, pinned, and forwards the request the wallet signed:
// it cannot change a byte of it (the endpoint checks the signature over
// method, path, body, time and nonce) and holds no key of the renter's.

// endpointLogTail is how many bytes of a job's output the lease page shows.
const endpointLogTail = 64 << 10

// endpointCall is one request to a lease's endpoint, as the page asks for it.
type endpointCall struct {
	LeaseID uint64 `json:"leaseId"`
	// Action is "manifest" (POST the body) or "logs" (GET the tail).
	Action string `json:"action"`
	Body   string `json:"body,omitempty"`
	Wallet string `json:"wallet"`
	// Set when forwarding: what the wallet signed.
	TsMillis  int64  `json:"ts,omitempty"`
	Nonce     string `json:"nonce,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// endpointPrepared is what the wallet is asked to sign.
type endpointPrepared struct {
	Text  string `json:"text"`
	Ts    int64  `json:"ts"`
	Nonce string `json:"nonce"`
}

func readCall(r *http.Request) (endpointCall, error) {
	var c endpointCall
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		return c, badRequest("not an endpoint request: %v", err)
	}
	if c.Action != "manifest" && c.Action != "logs" {
		return c, badRequest("action %q: want manifest or logs", c.Action)
	}
	if !common.IsHexAddress(c.Wallet) {
		return c, badRequest("wallet %q: connect a wallet", c.Wallet)
	}
	return c, nil
}

// request is the endpoint request a call makes, for the lease's provider.
func (s *Server) request(ctx context.Context, c endpointCall) (endpoint.Request, providertypes.Provider, error) {
	l, err := auctiontypes.NewQueryClient(s.conn).Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: c.LeaseID})
	if err != nil {
		return endpoint.Request{}, providertypes.Provider{}, err
	}
	renter, err := parseAccount(c.Wallet)
	if err != nil {
		return endpoint.Request{}, providertypes.Provider{}, err
	}
	if l.Lease.Renter != renter {
		return endpoint.Request{}, providertypes.Provider{}, apiErr(http.StatusForbidden, "lease %d is %s's; the connected wallet is %s", c.LeaseID, l.Lease.Renter, c.Wallet)
	}
	p, err := providertypes.NewQueryClient(s.conn).Provider(ctx, &providertypes.QueryProviderRequest{Operator: l.Lease.Provider})
	if err != nil {
		return endpoint.Request{}, providertypes.Provider{}, err
	}
	q := endpoint.Request{Target: endpoint.Target{ChainID: s.cfg.ChainID, Provider: l.Lease.Provider}, TsMillis: c.TsMillis, Nonce: c.Nonce}
	switch c.Action {
	case "manifest":
		q.Method, q.PathQuery, q.Body = http.MethodPost, fmt.Sprintf("/v1/leases/%d/manifest", c.LeaseID), []byte(c.Body)
	case "logs":
		q.Method, q.PathQuery = http.MethodGet, fmt.Sprintf("/v1/leases/%d/logs?tail=%d", c.LeaseID, endpointLogTail)
	}
	return q, p.Provider, nil
}

// prepareEndpoint: the text the wallet signs for a call, with a fresh nonce
// and the current time (the endpoint allows a few minutes of skew).
func (s *Server) prepareEndpoint(r *http.Request) (any, error) {
	c, err := readCall(r)
	if err != nil {
		return nil, err
	}
	var n [16]byte
	_, _ = rand.Read(n[:])
	c.TsMillis, c.Nonce = time.Now().UnixMilli(), hex.EncodeToString(n[:])
	q, _, err := s.request(r.Context(), c)
	if err != nil {
		return nil, err
	}
	return endpointPrepared{Text: string(q.WalletText()), Ts: c.TsMillis, Nonce: c.Nonce}, nil
}

// walletSignature is a signature the wallet already made.
type walletSignature struct {
	address string
	sig     []byte
}

// SignRequest sets the wallet's signature; the endpoint checks it.
func (w walletSignature) SignRequest(h http.Header, _ endpoint.Request) error {
	h.Set(endpoint.HeaderAddress, w.address)
	h.Set(endpoint.HeaderSignature, base64.StdEncoding.EncodeToString(w.sig))
	return nil
}

// endpointAnswer is what the page shows of the endpoint's answer.
type endpointAnswer struct {
	Status int    `json:"status"`
	Text   string `json:"text"`
}

// forwardEndpoint sends the signed request to the provider's registered
// endpoint over TLS pinned to its registered certificate.
func (s *Server) forwardEndpoint(r *http.Request) (any, error) {
	c, err := readCall(r)
	if err != nil {
		return nil, err
	}
	sig, err := hex.DecodeString(strings.TrimPrefix(c.Signature, "0x"))
	if err != nil || len(sig) != 65 {
		return nil, badRequest("signature: want 65 bytes in hex")
	}
	ctx := r.Context()
	q, p, err := s.request(ctx, c)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(p.Endpoint, "https://") {
		return nil, apiErr(http.StatusBadGateway, "the provider's endpoint %q is not https: the app forwards only over TLS pinned to the certificate on chain", p.Endpoint)
	}
	client := endpoint.NewClient(p.Endpoint, q.Target, nil, p.TlsCertSha256)
	req, err := http.NewRequestWithContext(ctx, q.Method, client.Base+q.PathQuery, bytes.NewReader(q.Body))
	if err != nil {
		return nil, err
	}
	if err := endpoint.SignRequest(req, q.Body, walletSignature{address: common.HexToAddress(c.Wallet).Hex(), sig: sig}, q.Target,
		time.UnixMilli(c.TsMillis), c.Nonce); err != nil {
		return nil, err
	}
	res, err := client.HTTP.Do(req)
	if err != nil {
		return nil, apiErr(http.StatusBadGateway, "the provider's endpoint %s: %v", p.Endpoint, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, endpointLogTail+4096))
	if err != nil {
		return nil, apiErr(http.StatusBadGateway, "the provider's endpoint %s: %v", p.Endpoint, err)
	}
	text := string(b)
	if res.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			text = e.Error
		}
		return nil, apiErr(http.StatusBadGateway, "the provider's endpoint answered %s: %s", strconv.Itoa(res.StatusCode), text)
	}
	if c.Action == "manifest" {
		text = fmt.Sprintf("manifest accepted by the provider for lease %d", c.LeaseID)
	}
	return endpointAnswer{Status: res.StatusCode, Text: text}, nil
}
