package gateway

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
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
	CAFile       string           `toml:"ca_file"`
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

// FileUpstream is one [[deployment.upstream]]: a lease's ingress.
type FileUpstream struct {
	Lease  uint64 `toml:"lease"`
	URL    string `toml:"url"`
	Region string `toml:"region"`
	// Host, when set, is sent as the Host header (the lease's hostname)
	// while url names the ingress by address.
	Host string `toml:"host"`
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
// files.
func (f File) Config() (Config, error) {
	var cfg Config
	var err error
	if cfg.ProbeEvery, err = optDuration(f.ProbeEvery); err != nil {
		return cfg, fmt.Errorf("probe_every: %w", err)
	}
	if cfg.ProbeTimeout, err = optDuration(f.ProbeTimeout); err != nil {
		return cfg, fmt.Errorf("probe_timeout: %w", err)
	}
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return cfg, fmt.Errorf("ca_file: %w", err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return cfg, fmt.Errorf("ca_file %s holds no PEM certificate", f.CAFile)
		}
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil
		t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
		t.ResponseHeaderTimeout = 2 * time.Minute
		cfg.Transport = t
	}
	for _, d := range f.Deployments {
		key, err := os.ReadFile(d.ProbeKeyFile)
		if err != nil {
			return cfg, fmt.Errorf("deployment %s: probe_key_file: %w", d.Host, err)
		}
		dep := Deployment{Host: d.Host, ProbePath: d.ProbePath, ProbeKey: strings.TrimSpace(string(key))}
		for _, u := range d.Upstreams {
			parsed, err := url.Parse(u.URL)
			if err != nil {
				return cfg, fmt.Errorf("deployment %s: upstream %d: %w", d.Host, u.Lease, err)
			}
			dep.Upstreams = append(dep.Upstreams, Upstream{LeaseID: u.Lease, URL: parsed, Region: u.Region, Host: u.Host})
		}
		cfg.Deployments = append(cfg.Deployments, dep)
	}
	return cfg, nil
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
