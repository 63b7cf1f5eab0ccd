package dockertest

import (
	"bufio"
	"io"
	"net"
	"sync"
	"time"
)

// Pong is a listener's other end for egress tests: it answers each
// connection's first line with "pong" and records the local address each
// connection reached, so a test can say exactly what a job got through to.
type Pong struct {
	mu      sync.Mutex
	reached []string
}

// Serve answers l's connections until l is closed.
func (s *Pong) Serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.reached = append(s.reached, c.LocalAddr().String())
		s.mu.Unlock()
		go func() {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
				_, _ = io.WriteString(c, "pong\n")
			}
		}()
	}
}

// Reached lists the local addresses connections reached, in order.
func (s *Pong) Reached() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reached...)
}
