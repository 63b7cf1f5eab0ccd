package endpoint

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// Client is the renter's side of the endpoint (what `idlegpud lease
// send-manifest|logs|samples` use): every request signed with the renter's
// key and a fresh nonce.
type Client struct {
	// Base is the provider's registered endpoint, e.g. https://gpu.example.com:8443.
	Base   string
	Target Target
	Signer Signer
	HTTP   *http.Client
	Now    func() time.Time
}

// NewClient returns a client for the endpoint at base. An https endpoint
// is trusted by the certificate pin the provider registered on chain
// (tls_cert_sha256, hex sha256 of the leaf certificate's DER), not by a CA:
// providers run self-signed certificates on their own machines. Requests
// are signed for target: the lease's provider and the chain it is on.
func NewClient(base string, target Target, s Signer, certSHA256 string) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if strings.HasPrefix(base, "https://") {
		want := strings.ToLower(certSHA256)
		tr.TLSClientConfig = &tls.Config{
			MinVersion:         tls.VersionTLS12,
			InsecureSkipVerify: true, // replaced by the pin check below
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 {
					return errors.New("endpoint sent no certificate")
				}
				sum := sha256.Sum256(raw[0])
				if got := hex.EncodeToString(sum[:]); got != want {
					return fmt.Errorf("endpoint certificate sha256 %s is not the pinned %s", got, want)
				}
				return nil
			},
		}
	}
	return &Client{Base: strings.TrimRight(base, "/"), Target: target, Signer: s, HTTP: &http.Client{Timeout: 30 * time.Second, Transport: tr}, Now: time.Now}
}

// do sends a signed request and returns the body of a 2xx answer, or the
// endpoint's error message.
func (c *Client) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	b, _, err := c.doHeader(ctx, method, path, body)
	return b, err
}

// doHeader is do that returns the answer's headers too.
func (c *Client) doHeader(ctx context.Context, method, path string, body []byte) ([]byte, http.Header, error) {
	req, err := c.newSigned(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, nil, err
	}
	if res.StatusCode/100 != 2 {
		return nil, nil, answerError(method, path, res.StatusCode, b)
	}
	return b, res.Header, nil
}

// newSigned is a request signed with a fresh nonce.
func (c *Client) newSigned(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	return req, SignRequest(req, body, c.Signer, c.Target, c.Now(), hex.EncodeToString(nonce[:]))
}

// answerError is the endpoint's error message of a non-2xx answer.
func answerError(method, path string, code int, b []byte) error {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return fmt.Errorf("%s %s: %s (HTTP %d)", method, path, e.Error, code)
	}
	return fmt.Errorf("%s %s: HTTP %d", method, path, code)
}

// SendManifest sends the manifest (the exact bytes hashed into the job's
// manifest_hash) to start the lease's job. A non-empty Preparing in the
// answer: the job starts once that is done (Status follows it).
func (c *Client) SendManifest(ctx context.Context, leaseID uint64, manifest []byte) (ManifestAccepted, error) {
	b, err := c.do(ctx, http.MethodPost, fmt.Sprintf("/v1/leases/%d/manifest", leaseID), manifest)
	if err != nil {
		return ManifestAccepted{}, err
	}
	var a ManifestAccepted
	if err := json.Unmarshal(b, &a); err != nil {
		return ManifestAccepted{}, fmt.Errorf("manifest of lease %d: the endpoint's answer: %w", leaseID, err)
	}
	return a, nil
}

// Status returns the job's status.
func (c *Client) Status(ctx context.Context, leaseID uint64) (JobStatus, error) {
	b, err := c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/leases/%d/status", leaseID), nil)
	if err != nil {
		return JobStatus{}, err
	}
	var s JobStatus
	return s, json.Unmarshal(b, &s)
}

// Logs returns a chunk of the job's output so far (see LogRange).
func (c *Client) Logs(ctx context.Context, leaseID uint64, lr LogRange) (LogChunk, error) {
	b, h, err := c.doHeader(ctx, http.MethodGet, fmt.Sprintf("/v1/leases/%d/logs%s", leaseID, lr.query()), nil)
	if err != nil {
		return LogChunk{}, err
	}
	off, err1 := strconv.ParseInt(h.Get(HeaderLogOffset), 10, 64)
	size, err2 := strconv.ParseInt(h.Get(HeaderLogSize), 10, 64)
	if err1 != nil || err2 != nil {
		return LogChunk{}, fmt.Errorf("logs of lease %d: the endpoint did not place the chunk (%s, %s)", leaseID, HeaderLogOffset, HeaderLogSize)
	}
	return LogChunk{Data: b, Offset: off, Size: size}, nil
}

// Samples fetches an epoch's samples and checks each against root — the
// samples_root of the proof stored on chain — so the renter holds exactly
// what the provider committed to (a contradicting sample is fraud evidence).
func (c *Client) Samples(ctx context.Context, leaseID, epoch uint64, root []byte) (SamplesResponse, error) {
	b, err := c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/leases/%d/epochs/%d/samples", leaseID, epoch), nil)
	if err != nil {
		return SamplesResponse{}, err
	}
	var out SamplesResponse
	if err := json.Unmarshal(b, &out); err != nil {
		return SamplesResponse{}, err
	}
	return out, VerifySamples(out, root)
}

// VerifySamples checks that every sample of an endpoint's answer is a leaf
// of root (the samples_root of the proof on chain) at the index it claims.
func VerifySamples(out SamplesResponse, root []byte) error {
	if !bytes.Equal(out.SamplesRoot, root) {
		return fmt.Errorf("the endpoint's samples root %x is not the proof's %x", out.SamplesRoot, root)
	}
	n := uint64(len(out.Samples))
	for _, s := range out.Samples {
		leaf, err := s.Sample.LeafHash()
		if err != nil {
			return err
		}
		if err := settlementtypes.VerifyMerklePath(root, leaf, s.LeafIndex, n, s.Path); err != nil {
			return fmt.Errorf("sample %d: %w", s.LeafIndex, err)
		}
	}
	return nil
}
