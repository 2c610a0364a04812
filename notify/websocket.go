package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/coder/websocket"
)

// DropError says why a connection ended: the close frame's code and reason
// when the Source sent one, or what broke.
type DropError struct {
	URL    string
	Code   int    // WebSocket close code (RFC 6455 section 7.4); 0 when none came
	Reason string // the close frame's reason, "" when none
	Err    error  // the underlying error
}

func (e *DropError) Error() string {
	switch {
	case e.Code != 0 && e.Reason != "":
		return fmt.Sprintf("%s closed the connection: %d %s", e.URL, e.Code, e.Reason)
	case e.Code != 0:
		return fmt.Sprintf("%s closed the connection: %d", e.URL, e.Code)
	case e.Reason != "":
		return e.URL + ": " + e.Reason
	}
	return fmt.Sprintf("%s: %v", e.URL, e.Err)
}

func (e *DropError) Unwrap() error { return e.Err }

// webSocketSession connects to a WebSocket channel (RFC 6455) and reads its
// messages until the connection ends. The Source sends; nothing is sent back
// but control frames (section 6 of the draft).
func (w *watcher) webSocketSession(ctx context.Context, ch Channel, h hooks) error {
	dctx, cancel := context.WithTimeout(ctx, w.opts.DialTimeout)
	dopts := &websocket.DialOptions{HTTPClient: w.opts.HTTPClient}
	if w.opts.Header != nil {
		dopts.HTTPHeader = w.opts.Header(ch.URL)
	}
	c, resp, err := websocket.Dial(dctx, ch.URL, dopts)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return &DropError{URL: ch.URL, Err: fmt.Errorf("connect: %s", resp.Status)}
		}
		return &DropError{URL: ch.URL, Err: fmt.Errorf("connect: %w", err)}
	}
	defer c.CloseNow()
	c.SetReadLimit(w.opts.MaxMessageBytes)
	h.connected()
	for {
		_, r, err := c.Reader(ctx)
		if err == nil {
			var raw []byte
			raw, err = io.ReadAll(r)
			if err == nil {
				h.deliver(raw)
				continue
			}
		}
		if ctx.Err() != nil {
			c.Close(websocket.StatusNormalClosure, "subscriber done")
			return nil
		}
		return dropError(ch.URL, err, w.opts.MaxMessageBytes)
	}
}

func dropError(u string, err error, limit int64) error {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return &DropError{URL: u, Code: int(ce.Code), Reason: ce.Reason, Err: err}
	}
	if errors.Is(err, websocket.ErrMessageTooBig) {
		return &DropError{URL: u, Err: fmt.Errorf("a notification larger than %d bytes (the limit): %w", limit, err)}
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) || strings.Contains(msg, "EOF") {
		return &DropError{URL: u, Err: fmt.Errorf("the connection ended without a close frame: %w", err)}
	}
	return &DropError{URL: u, Err: err}
}
