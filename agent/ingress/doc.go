// Package ingress is the provider's inbound door to a lease's service: a
// reverse proxy that serves each lease that asked for an HTTP service at a
// hostname of its own under the provider's domain, and only while the lease
// runs.
//
// For each request it
//   - finds the lease by the Host header (an unknown host is 404, saying
//     nothing about which leases exist);
//   - refuses it after the lease's end (410), and cuts a stream at that end;
//   - checks the caller's API key: one of the keys the renter issued for
//     the lease, kept as SHA-256 hashes, revocable, checked in memory
//     without a chain query; each key has its own rate limit (429);
//   - forwards it to the lease's container port only, never to the agent's
//     own endpoint or another lease's port, without the caller's key;
//   - streams the answer as it comes (server-sent events flushed at once,
//     protocol upgrades such as WebSocket spliced through, HTTP/2 from the
//     caller when the listener offers it);
//   - meters it for the lease: requests, bytes each way, the latency to the
//     response's header, and, for OpenAI-compatible answers, the prompt and
//     completion tokens the server reported (its "usage").
//
// What is trusted: the counts are the provider's own report. A renter
// checks them against its own gateway's counts; the proxy cannot count what
// never passed through it, and a provider could inflate them.
package ingress
