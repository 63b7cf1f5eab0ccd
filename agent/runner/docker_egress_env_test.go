package runner

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"

	"github.com/idlegpu/idlegpu/scripts/dockertest"
)

// egressExec runs a command the test needs to succeed.
func egressExec(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "%s: %s", strings.Join(args, " "), out)
	return string(out)
}

// fakeResolver answers every A question with one address over UDP inside
// the fake internet, and counts the questions.
type fakeResolver struct {
	answer [4]byte
	mu     sync.Mutex
	asked  []string
}

func (r *fakeResolver) serve(t *testing.T, addr string) {
	t.Helper()
	var pc net.PacketConn
	dockertest.InInternet(t, func() (err error) {
		pc, err = net.ListenPacket("udp4", addr)
		return err
	})
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply, ok := r.reply(buf[:n]); ok {
				_, _ = pc.WriteTo(reply, from)
			}
		}
	}()
}

func (r *fakeResolver) reply(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	r.mu.Lock()
	r.asked = append(r.asked, q.Name.String()+" "+q.Type.String())
	r.mu.Unlock()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired})
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	if q.Type == dnsmessage.TypeA {
		_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: r.answer})
	}
	msg, err := b.Finish()
	return msg, err == nil
}

func (r *fakeResolver) Asked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

// listenHost opens a TCP listener in the host's namespace.
func listenHost(t *testing.T, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp4", addr)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// bulkTransfer is one timed connection to a bulk server.
type bulkTransfer struct {
	bytes    int64
	duration time.Duration
}

// sinkOrSource accepts one connection: it reads it to the end, or, with
// send > 0, writes send bytes and closes. The time runs from the first byte
// read (or from the accept when sending) to the end.
func sinkOrSource(l net.Listener, send int64) <-chan bulkTransfer {
	done := make(chan bulkTransfer, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			done <- bulkTransfer{bytes: -1}
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(60 * time.Second))
		if send > 0 {
			start := time.Now()
			n, _ := io.Copy(c, io.LimitReader(zeroes{}, send))
			_ = c.(*net.TCPConn).CloseWrite()
			// The job reads to the end before closing: its close marks arrival.
			_, _ = io.Copy(io.Discard, c)
			done <- bulkTransfer{bytes: n, duration: time.Since(start)}
			return
		}
		first := make([]byte, 1)
		if _, err := io.ReadFull(c, first); err != nil {
			done <- bulkTransfer{bytes: 0}
			return
		}
		start := time.Now()
		n, _ := io.Copy(io.Discard, c)
		done <- bulkTransfer{bytes: n + 1, duration: time.Since(start)}
	}()
	return done
}

type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// iptablesRules lists a chain's rules, "" when the chain does not exist.
func iptablesRules(chain string) (string, error) {
	out, err := exec.Command("iptables", "-w", "-S").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("iptables -S: %w: %s", err, out)
	}
	var rules []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "-A" && f[1] == chain {
			rules = append(rules, line)
		}
	}
	return strings.Join(rules, "\n"), nil
}
