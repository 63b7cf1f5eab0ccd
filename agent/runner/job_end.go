package runner

import "sync"

// jobEnd is how both runners keep a job's end: Done closes once, when the
// job has ended and been cleaned up, and Status says Running until then and
// the recorded end after.
type jobEnd struct {
	done  chan struct{}
	endMu sync.Mutex
	end   Status
}

func newJobEnd() jobEnd { return jobEnd{done: make(chan struct{})} }

// Done implements Job.
func (e *jobEnd) Done() <-chan struct{} { return e.done }

// Status implements Job.
func (e *jobEnd) Status() Status {
	select {
	case <-e.done:
	default:
		return Status{Running: true}
	}
	e.endMu.Lock()
	defer e.endMu.Unlock()
	return e.end
}

// recordEnd records the end and closes Done; once.
func (e *jobEnd) recordEnd(s Status) {
	e.endMu.Lock()
	e.end = s
	e.endMu.Unlock()
	close(e.done)
}
