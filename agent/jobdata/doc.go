// Package jobdata moves a lease's data: the inputs its manifest names,
// fetched and verified before the job starts (cached by sha256 across
// leases), and the files the job leaves in its output directory, listed
// with their sha256 under the agent's signature, served to the renter and
// deleted after a stated retention.
package jobdata
