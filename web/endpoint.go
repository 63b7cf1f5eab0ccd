package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/idlegpu/idlegpu/endpoint"
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
	// Action is "manifest" (POST the body), "logs" (GET the tail) or
	// "samples" (GET Epoch's samples, checked against its proof's root).
	Action string `json:"action"`
	Body   string `json:"body,omitempty"`
	Epoch  uint64 `json:"epoch,omitempty"`
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
	if c.Action != "manifest" && c.Action != "logs" && c.Action != "samples" {
		return c, badRequest("action %q: want manifest, logs or samples", c.Action)
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
	case "samples":
		q.Method, q.PathQuery = http.MethodGet, fmt.Sprintf("/v1/leases/%d/epochs/%d/samples", c.LeaseID, c.Epoch)
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
	Status  int          `json:"status"`
	Text    string       `json:"text"`
	Samples []sampleView `json:"samples,omitempty"`
}

// sampleView is one verified sample as the lease page lists it.
type sampleView struct {
	Time   string `json:"time"`
	GPU    string `json:"gpu"`
	Util   string `json:"util"`
	Memory string `json:"memory"`
	Power  string `json:"power"`
	Temp   string `json:"temp"`
}

// samplesMax bounds the endpoint answer read for an epoch's samples (an
// hour's epoch of 8 GPUs at 1 s is 28,800 samples with their paths).
const samplesMax = 64 << 20

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
	limit := int64(endpointLogTail + 4096)
	if c.Action == "samples" {
		limit = samplesMax
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, limit))
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
		// The provider's refusal (401 for a signature it does not accept,
		// 404, 409, …) is the caller's to read as such; only the provider's
		// own failure is a bad gateway.
		code := http.StatusBadGateway
		if res.StatusCode/100 == 4 {
			code = res.StatusCode
		}
		return nil, apiErr(code, "the provider's endpoint answered %s: %s", strconv.Itoa(res.StatusCode), text)
	}
	switch c.Action {
	case "manifest":
		text = fmt.Sprintf("manifest accepted by the provider for lease %d", c.LeaseID)
	case "samples":
		return s.checkSamples(ctx, c, b)
	}
	return endpointAnswer{Status: res.StatusCode, Text: text}, nil
}

// checkSamples verifies an epoch's samples against the samples root of the
// proof the chain accepted (as the index recorded it) with the endpoint's
// own rule (endpoint.VerifySamples), so what the page lists is exactly what
// the provider committed to.
func (s *Server) checkSamples(ctx context.Context, c endpointCall, body []byte) (any, error) {
	var out endpoint.SamplesResponse
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, apiErr(http.StatusBadGateway, "the provider's samples: %v", err)
	}
	epochs, err := s.db.Epochs(ctx, c.LeaseID, maxEpochs, 0)
	if err != nil {
		return nil, err
	}
	var root []byte
	for _, e := range epochs {
		if e.Epoch == c.Epoch && e.Status == "proven" {
			root, err = hex.DecodeString(e.SamplesRoot)
			if err != nil {
				return nil, err
			}
		}
	}
	if root == nil {
		return nil, apiErr(http.StatusNotFound, "epoch %d of lease %d has no proof indexed yet", c.Epoch, c.LeaseID)
	}
	if err := endpoint.VerifySamples(out, root); err != nil {
		return nil, apiErr(http.StatusBadGateway, "the provider's samples do not match its proof: %v", err)
	}
	ans := endpointAnswer{Status: http.StatusOK, Text: fmt.Sprintf("%d samples of epoch %d, every one under the proof's root %x…", len(out.Samples), c.Epoch, root[:6])}
	for _, sp := range out.Samples {
		smp := sp.Sample
		ans.Samples = append(ans.Samples, sampleView{
			Time: time.UnixMilli(smp.TimestampMs).UTC().Format("15:04:05.000"), GPU: Short(smp.GpuUuid),
			Util: units.Bps(smp.UtilBps), Memory: units.MiB(smp.MemUsedMib), Power: chartNumber(float64(smp.PowerMw)/1000) + " W",
			Temp: fmt.Sprintf("%d °C", smp.TempC),
		})
	}
	return ans, nil
}
