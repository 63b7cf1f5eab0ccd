package daemon

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// ingressConnLimits suit a gateway's few multiplexed HTTP/2 connections
// and end users calling directly: far more than a renter's endpoint polls.
var ingressConnLimits = endpoint.HTTPLimits{MaxConns: 4096, MaxConnsPerHost: 512}

// serviceRunner is a runner whose jobs serve on a network of their own
// (the docker runner with a service network): the ingress dials the job's
// address there. Other runners' jobs serve on the host's loopback.
type serviceRunner interface {
	ServiceAddr(ctx context.Context, leaseID uint64) (netip.AddrPort, error)
	ServiceSubnet() (netip.Prefix, bool)
}

// ingressState is the agent's ingress: its route table, what it publishes,
// and each lease's service port as the chain's job states it.
type ingressState struct {
	table  *ingress.Table
	proxy  *ingress.Proxy
	cert   tls.Certificate
	domain string
	pin    string
	rate   rate.Limit
	burst  int
	// ports caches each lease's job's ingress_port (0: it serves
	// nothing), so the chain is asked once per lease.
	ports map[uint64]uint32
	// keys are the renters' keys on disk; keyMu orders a key's change in
	// the store and the table against a route's keys being loaded, so a
	// revoked key is never put back.
	keys  *keyStore
	keyMu sync.Mutex
}

// newIngress prepares the ingress when it is configured: the certificate
// (generated and pinned when none is configured) and an empty route table
// that never targets the agent's own listeners.
func (d *Daemon) newIngress() (*ingressState, error) {
	c := d.cfg.Ingress
	if !c.Enabled() {
		return nil, nil
	}
	certPath, keyPath, pinned := c.Certificate(d.cfg.State.Dir)
	if c.TLSCert == "" {
		if _, err := os.Stat(certPath); errors.Is(err, os.ErrNotExist) {
			if _, err := endpoint.GenerateSelfSigned(certPath, keyPath, []string{"*." + c.Domain}, time.Now()); err != nil {
				return nil, fmt.Errorf("ingress certificate: %w", err)
			}
		}
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("ingress certificate: %w", err)
	}
	keys, err := openKeyStore(filepath.Join(d.cfg.State.Dir, "ingress-keys"))
	if err != nil {
		return nil, fmt.Errorf("ingress keys: %w", err)
	}
	st := &ingressState{cert: cert, domain: c.Domain, ports: map[uint64]uint32{}, keys: keys}
	if pinned {
		st.pin = endpoint.Pin(cert.Certificate[0])
	}
	r, b := c.Limits()
	st.rate, st.burst = rate.Limit(r), b
	st.table = ingress.NewTable(reservedTargets(d.cfg.Endpoint.Listen, d.cfg.Metrics.Listen, c.Listen)...)
	if sr, ok := d.runner.(serviceRunner); ok {
		if subnet, ok := sr.ServiceSubnet(); ok {
			st.table.AllowServices(subnet)
		}
	}
	st.proxy = ingress.NewProxy(st.table, nil, log.New(slogWriter{d.log}, "", 0))
	return st, nil
}

// reservedTargets are the loopback addresses of the agent's own listeners:
// a job's route may never point at them, whatever address they listen on.
func reservedTargets(listens ...string) []string {
	var out []string
	for _, l := range listens {
		if l == "" {
			continue
		}
		_, port, err := net.SplitHostPort(l)
		if err != nil {
			continue
		}
		out = append(out, l, net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port), net.JoinHostPort("localhost", port))
	}
	return out
}

// ingressTerms are the inbound-service terms the agent publishes: its
// domain and pin when its ingress runs and its runner can reach a job's
// service, else none (IngressFits then matches it no job that serves).
func (d *Daemon) ingressTerms() (domain, pin string) {
	if d.ing == nil {
		return "", ""
	}
	return d.ing.domain, d.ing.pin
}

// syncIngress makes the route table follow the leases each step: a running
// job of an ACTIVE lease whose job names an ingress_port is served until the
// lease's end; a lease that stopped running or left the chain's list loses
// its route, keys and meter. Bounded by the leases the registry holds.
func (d *Daemon) syncIngress(ctx context.Context) {
	if d.ing == nil {
		return
	}
	serving := map[uint64]bool{}
	for _, l := range d.reg.Snapshot() {
		if l.Job == nil || !l.Active() || l.Chain.Start.IsZero() {
			continue
		}
		port, err := d.ingressPort(ctx, l.Chain)
		if err != nil {
			d.fail("ingress", err)
			continue
		}
		if port == 0 {
			continue
		}
		serving[l.ID] = true
		ends := l.Chain.Start.Add(time.Duration(l.Chain.DurationSeconds) * time.Second)
		if have, ok := d.ing.table.Route(l.ID); ok && have.Ends.Equal(ends) {
			continue
		}
		target, err := d.serviceTarget(ctx, l.ID, port)
		if err != nil {
			d.fail("ingress", err)
			continue
		}
		r := ingress.Route{LeaseID: l.ID, Host: ingress.HostFor(l.ID, d.ing.domain), Target: target, Ends: ends, Rate: d.ing.rate, Burst: d.ing.burst}
		if err := d.setRoute(r); err != nil {
			d.fail("ingress", fmt.Errorf("lease %d: %w", l.ID, err))
			continue
		}
		d.log.Info("lease served", "lease", l.ID, "host", r.Host, "target", target.Host, "ends", ends)
	}
	for _, id := range d.ing.table.Leases() {
		if !serving[id] {
			d.ing.table.Remove(id)
			d.log.Info("lease no longer served", "lease", id)
		}
	}
	// A lease the chain no longer lists has ended: its keys and cached
	// port go (a PENDING lease keeps the keys registered for its start).
	for _, id := range d.ing.keys.leases() {
		if l, ok := d.reg.Get(id); !ok || !l.Listed {
			if err := d.ing.keys.drop(id); err != nil {
				d.fail("ingress", err)
			}
		}
	}
	for id := range d.ing.ports {
		if l, ok := d.reg.Get(id); !ok || !l.Listed {
			delete(d.ing.ports, id)
		}
	}
}

// setRoute sets a lease's route and loads its stored keys into it.
func (d *Daemon) setRoute(r ingress.Route) error {
	d.ing.keyMu.Lock()
	defer d.ing.keyMu.Unlock()
	if err := d.ing.table.Set(r); err != nil {
		return err
	}
	for _, h := range d.ing.keys.of(r.LeaseID) {
		if err := d.ing.table.AddKey(r.LeaseID, h); err != nil {
			return err
		}
	}
	return nil
}

// ingressPort is the lease's job's ingress_port, asked of the chain once.
func (d *Daemon) ingressPort(ctx context.Context, l auctiontypes.Lease) (uint32, error) {
	if p, ok := d.ing.ports[l.Id]; ok {
		return p, nil
	}
	job, err := d.q.Job(ctx, l.JobId)
	if err != nil {
		return 0, fmt.Errorf("job %d of lease %d: %w", l.JobId, l.Id, err)
	}
	d.ing.ports[l.Id] = job.Spec.IngressPort
	return job.Spec.IngressPort, nil
}

// serviceTarget is where the lease's service listens: the job's address on
// the runner's service network, or the host's loopback for a runner
// without one (the process runner).
func (d *Daemon) serviceTarget(ctx context.Context, lease uint64, port uint32) (*url.URL, error) {
	if sr, ok := d.runner.(serviceRunner); ok {
		if _, has := sr.ServiceSubnet(); has {
			a, err := sr.ServiceAddr(ctx, lease)
			if err != nil {
				return nil, err
			}
			return &url.URL{Scheme: "http", Host: a.String()}, nil
		}
		return nil, fmt.Errorf("lease %d: %w", lease, runner.ErrNoService)
	}
	return &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.FormatUint(uint64(port), 10))}, nil
}

// slogWriter passes the reverse proxy's own messages (a stream cut at its
// lease's end) to the agent's log.
type slogWriter struct{ log *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.Debug("ingress", "msg", string(p))
	return len(p), nil
}

// acceptsIngress applies the fit rule (offertypes.IngressFits) to a job
// before the agent takes its lease: one that serves needs the agent's
// ingress.
func (d *Daemon) acceptsIngress(job auctiontypes.Job) error {
	domain, _ := d.ingressTerms()
	if !offertypes.IngressFits(domain, job.Spec.IngressPort) {
		return fmt.Errorf("the job serves on port %d and this agent runs no ingress", job.Spec.IngressPort)
	}
	return nil
}
