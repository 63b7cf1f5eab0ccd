package gateway

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/idlegpu/idlegpu/chainclient"
)

// File is idlegpu-gateway's configuration file (gateway.toml).
type File struct {
	// Listen is the address the gateway serves on; TLSCert and TLSKey,
	// when set, make it HTTPS (with HTTP/2), as a gateway facing users
	// should be unless a load balancer in front terminates TLS.
	Listen  string `toml:"listen"`
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// Region is where this gateway runs (the market's region names); it is
	// shown with each upstream's, so a renter places gateways near users.
	Region string `toml:"region"`
	// CAFile, when set, holds the certificates ingress certificates are
	// verified against instead of the system's roots (a test network's
	// self-signed ingresses).
	CAFile string `toml:"ca_file"`
	// ChainGRPC is a node's gRPC address (host:port): an upstream given
	// by its lease alone is found there (NodeChain).
	ChainGRPC    string           `toml:"chain_grpc"`
	ProbeEvery   string           `toml:"probe_every"`
	ProbeTimeout string           `toml:"probe_timeout"`
	Deployments  []FileDeployment `toml:"deployment"`
}

// FileDeployment is one [[deployment]].
type FileDeployment struct {
	Host      string `toml:"host"`
	ProbePath string `toml:"probe_path"`
	// ProbeKeyFile holds the API key the gateway probes with.
	ProbeKeyFile string         `toml:"probe_key_file"`
	Upstreams    []FileUpstream `toml:"upstream"`
}

// FileUpstream is one [[deployment.upstream]]: a lease's ingress. Without
// a url it is found on chain (chain_grpc): the lease's hostname, the pin of
// its ingress's certificate and its provider's region.
type FileUpstream struct {
	Lease  uint64 `toml:"lease"`
	URL    string `toml:"url"`
	Region string `toml:"region"`
	// Host, when set, is sent as the Host header (the lease's hostname)
	// while url names the ingress by address.
	Host string `toml:"host"`
	// Connect, when set, is the address (host:port) dialled for the
	// upstream instead of its name's (a network without DNS for it).
	Connect string `toml:"connect"`
}

// LoadFile reads and checks a configuration file strictly (an unknown
// key is an error: a typo must not drop a setting).
func LoadFile(path string) (File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	var f File
	dec := toml.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	if f.Listen == "" {
		return File{}, fmt.Errorf("%s: listen is required", path)
	}
	if (f.TLSCert == "") != (f.TLSKey == "") {
		return File{}, fmt.Errorf("%s: tls_cert and tls_key go together", path)
	}
	return f, nil
}

// Config makes the gateway's Config from the file, reading its key and CA
// files and finding upstreams given by lease on the chain at chain_grpc.
func (f File) Config(ctx context.Context) (Config, error) {
	var chain Chain
	if f.ChainGRPC != "" {
		conn, err := chainclient.DialGRPC(f.ChainGRPC)
		if err != nil {
			return Config{}, fmt.Errorf("chain_grpc: %w", err)
		}
		defer conn.Close()
		chain = NodeChain{Conn: conn}
	}
	return f.ConfigWith(ctx, chain)
}

// ConfigWith is Config with the chain given (nil: every upstream has a url).
func (f File) ConfigWith(ctx context.Context, chain Chain) (Config, error) {
	var cfg Config
	var err error
	if cfg.ProbeEvery, err = optDuration(f.ProbeEvery); err != nil {
		return cfg, fmt.Errorf("probe_every: %w", err)
	}
	if cfg.ProbeTimeout, err = optDuration(f.ProbeTimeout); err != nil {
		return cfg, fmt.Errorf("probe_timeout: %w", err)
	}
	var roots *x509.CertPool // nil: the system's
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return cfg, fmt.Errorf("ca_file: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return cfg, fmt.Errorf("ca_file %s holds no PEM certificate", f.CAFile)
		}
	}
	pins, connect := map[string]string{}, map[string]string{}
	for _, d := range f.Deployments {
		key, err := os.ReadFile(d.ProbeKeyFile)
		if err != nil {
			return cfg, fmt.Errorf("deployment %s: probe_key_file: %w", d.Host, err)
		}
		dep := Deployment{Host: d.Host, ProbePath: d.ProbePath, ProbeKey: strings.TrimSpace(string(key))}
		for _, u := range d.Upstreams {
			up := Upstream{LeaseID: u.Lease, Region: u.Region, Host: u.Host}
			switch {
			case u.URL != "":
				if up.URL, err = url.Parse(u.URL); err != nil {
					return cfg, fmt.Errorf("deployment %s: upstream %d: %w", d.Host, u.Lease, err)
				}
			case chain == nil:
				return cfg, fmt.Errorf("deployment %s: upstream %d has no url and no chain_grpc to find it on", d.Host, u.Lease)
			default:
				in, err := chain.LeaseIngress(ctx, u.Lease)
				if err != nil {
					return cfg, fmt.Errorf("deployment %s: %w", d.Host, err)
				}
				up.URL = in.URL
				if in.Pin != "" {
					pins[in.URL.Hostname()] = in.Pin
				}
				if up.Region == "" {
					up.Region = in.Region
				}
			}
			if u.Connect != "" {
				connect[hostPort(up.URL)] = u.Connect
			}
			dep.Upstreams = append(dep.Upstreams, up)
		}
		cfg.Deployments = append(cfg.Deployments, dep)
	}
	cfg.Transport = newTransport(roots, pins, connect, 2*time.Minute)
	return cfg, nil
}

// hostPort is the address a URL's host is dialled at.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "443")
}

func optDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = fmt.Errorf("%s is not positive", s)
	}
	return d, err
}
