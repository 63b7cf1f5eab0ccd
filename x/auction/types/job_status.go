package types

// JobStatusAfter is a job's status once lease l has ended for good
// (x/auction/README.md, "Job status"): the job reads what happened to its leases,
// the worst outcome winning — FAILED (a lease failed or was slashed) over
// INTERRUPTED (one ended early on the provider's side: closed by it,
// preempted, or never started) over CLOSED (the renter ended one early;
// CANCELLED, the renter's cancel, ranks the same and is kept) over
// COMPLETED (every lease ran its term). While leases remain the job stays
// MATCHED unless an outcome worse than COMPLETED is already known.
func JobStatusAfter(current JobStatus, l Lease, last bool) JobStatus {
	next := current
	if o := leaseJobOutcome(l); jobRank(o) > jobRank(current) {
		next = o
	}
	if next == JOB_STATUS_MATCHED && last {
		return JOB_STATUS_COMPLETED
	}
	return next
}

// leaseJobOutcome is how one ended lease reads at the job's level.
func leaseJobOutcome(l Lease) JobStatus {
	switch l.Status {
	case LEASE_STATUS_FAILED, LEASE_STATUS_SLASHED:
		return JOB_STATUS_FAILED
	case LEASE_STATUS_PREEMPTED, LEASE_STATUS_EXPIRED:
		return JOB_STATUS_INTERRUPTED
	case LEASE_STATUS_CLOSED:
		if l.ClosedByProvider {
			return JOB_STATUS_INTERRUPTED
		}
		return JOB_STATUS_CLOSED
	}
	return JOB_STATUS_MATCHED // COMPLETED: nothing worse to report
}

// jobRank orders outcomes: a higher rank replaces a lower one.
func jobRank(s JobStatus) int {
	switch s {
	case JOB_STATUS_FAILED:
		return 4
	case JOB_STATUS_INTERRUPTED:
		return 3
	case JOB_STATUS_CLOSED, JOB_STATUS_CANCELLED:
		return 2
	}
	return 1
}

// CancelledStatus is a job's status after its renter cancels it: CANCELLED,
// unless a worse outcome (a failed or interrupted lease) is already known.
func CancelledStatus(current JobStatus) JobStatus {
	if jobRank(current) > jobRank(JOB_STATUS_CANCELLED) {
		return current
	}
	return JOB_STATUS_CANCELLED
}

// JobEnded reports whether a job has ended for good: it no longer takes
// bids and none of its leases is live, so nothing about it can change but
// its pruning (x/auction/keeper/retention.go).
func JobEnded(j Job) bool {
	return j.Status != JOB_STATUS_OPEN && j.Status != JOB_STATUS_MATCHED && j.OpenLeases == 0
}
