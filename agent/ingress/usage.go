package ingress

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
)

// usage is the token counts an OpenAI-compatible server reports: in a JSON
// answer's "usage", or in a stream's chunk that carries one (the last, with
// stream_options.include_usage; servers that repeat it per chunk report
// running totals, so the last one seen counts).
type usage struct {
	PromptTokens     uint64 `json:"prompt_tokens"`
	CompletionTokens uint64 `json:"completion_tokens"`
}

// maxUsageBody is the most of a JSON answer kept to read its usage; a
// larger answer is forwarded whole but its tokens are not counted.
const maxUsageBody = 4 << 20

// maxEventLine is the longest server-sent event line read for usage.
const maxEventLine = 1 << 20

// usageReader watches an answer's body as it is forwarded and, at its end,
// reports the usage it carried (if any) exactly once.
type usageReader struct {
	body   io.ReadCloser
	sse    bool
	buf    bytes.Buffer
	skip   bool // the current line or body is too long to parse
	last   *usage
	report func(usage)
	done   bool
}

// watchUsage wraps body when its content type may carry usage.
func watchUsage(body io.ReadCloser, contentType string, report func(usage)) io.ReadCloser {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return body
	}
	switch mt {
	case "text/event-stream":
		return &usageReader{body: body, sse: true, report: report}
	case "application/json":
		return &usageReader{body: body, report: report}
	}
	return body
}

func (u *usageReader) Read(p []byte) (int, error) {
	n, err := u.body.Read(p)
	u.feed(p[:n])
	if err == io.EOF {
		u.finish()
	}
	return n, err
}

// Close reports what was seen: a stream cut before its end (the lease
// ended, the caller left) counts the usage its chunks reported so far.
func (u *usageReader) Close() error {
	u.finish()
	return u.body.Close()
}

func (u *usageReader) feed(p []byte) {
	if !u.sse {
		if u.buf.Len()+len(p) > maxUsageBody {
			u.skip = true
		}
		if !u.skip {
			u.buf.Write(p)
		}
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			u.appendLine(p)
			return
		}
		u.appendLine(p[:i])
		u.line()
		p = p[i+1:]
	}
}

func (u *usageReader) appendLine(p []byte) {
	if u.buf.Len()+len(p) > maxEventLine {
		u.skip = true
	}
	if !u.skip {
		u.buf.Write(p)
	}
}

// line reads one complete event-stream line.
func (u *usageReader) line() {
	defer func() { u.buf.Reset(); u.skip = false }()
	if u.skip {
		return
	}
	data, ok := bytes.CutPrefix(bytes.TrimRight(u.buf.Bytes(), "\r"), []byte("data:"))
	if !ok {
		return
	}
	if got, ok := parseUsage(bytes.TrimSpace(data)); ok {
		u.last = &got
	}
}

func (u *usageReader) finish() {
	if u.done {
		return
	}
	u.done = true
	if !u.sse && !u.skip {
		if got, ok := parseUsage(u.buf.Bytes()); ok {
			u.last = &got
		}
	}
	if u.last != nil {
		u.report(*u.last)
	}
}

// parseUsage reads the "usage" of one JSON object; ok is false when the
// object has none (or is not JSON, such as a stream's "[DONE]").
func parseUsage(b []byte) (usage, bool) {
	var v struct {
		Usage *usage `json:"usage"`
	}
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &v) != nil || v.Usage == nil {
		return usage{}, false
	}
	return *v.Usage, true
}
