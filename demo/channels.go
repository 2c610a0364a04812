package demo

import (
	"context"
	"net/http"
	"strings"

	"github.com/coder/websocket"
)

// serveChannel serves a notification channel as a WebSocket (RFC 6455):
// messages go from the Source to the subscriber only (section 6 of the draft);
// anything the subscriber sends ends the connection. It reports false when p
// is not a channel path.
func (s *Source) serveChannel(w http.ResponseWriter, r *http.Request, p, base string) bool {
	i, k, ok := s.parseChannel(p)
	if !ok {
		return false
	}
	if !isUpgrade(r) {
		s.serveTopic(w, r, i, k, base) // the channel as a WebSub topic (websub.go)
		return true
	}
	sub, ok := s.subscribe(i, k)
	if !ok {
		http.Error(w, "the demo Source is shutting down", http.StatusServiceUnavailable)
		return true
	}
	defer s.notify.remove(sub)
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return true // Accept has answered
	}
	s.pushNotifications(c, sub, base)
	return true
}

func isUpgrade(r *http.Request) bool {
	for _, v := range r.Header.Values("Connection") {
		for _, tok := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
			}
		}
	}
	return false
}

// pushNotifications writes the notifications of every advance queued for
// the subscriber until it goes away or is dropped.
func (s *Source) pushNotifications(c *websocket.Conn, sub *subscription, base string) {
	// The subscriber sends nothing; reading in the background answers pings
	// and notices a close.
	gone := c.CloseRead(context.Background())
	defer c.CloseNow()
	for {
		select {
		case a := <-sub.queue:
			for step := a.from; step < a.until; step++ {
				for _, msg := range s.notifications(&a.logs, sub.dataset, sub.kind, step, base) {
					ctx, cancel := context.WithTimeout(gone, notifyWriteTimeout)
					err := c.Write(ctx, websocket.MessageText, msg)
					cancel()
					if err != nil {
						return // the library has closed the connection
					}
				}
				select {
				case <-sub.done:
					c.Close(sub.code, sub.reason)
					return
				default:
				}
			}
		case <-sub.done:
			c.Close(sub.code, sub.reason)
			return
		case <-gone.Done():
			return
		}
	}
}
