// Package gateway gives a renter's deployment (its model served on several
// leases, by several providers) one stable address near its users. Each
// request goes to the deployment's healthy lease with the lowest measured
// latency (weighted by the requests it already has in flight), and to the
// next one when a lease does not answer before any byte of its answer was
// sent; a lease that fails, or whose health probe fails, is out of
// rotation until a probe succeeds again, so a provider that dies is out
// within a probe interval even with no traffic.
//
// The gateway forwards the caller's API key: the renter issues its end
// users keys valid on every lease of the deployment, and each provider's
// ingress (agent/ingress) checks them. Streams (server-sent events) are
// flushed as they come; a request body is kept (up to maxRetryBody) so it
// can be sent again to another lease.
//
// A renter runs its own gateway, so its counts of requests and latency are
// the renter's, to check the providers' metered counts against.
package gateway
