package session

import (
	"slices"
	"strings"

	"rsx/fetch"
)

// throttler is a client that tells which hosts its politeness holds back
// (*fetch.Client is one).
type throttler interface{ Throttled() []fetch.Throttle }

// Throttled returns the hosts whose requests wait for their turn (the
// per-host rate of the host's kind, a robots.txt Crawl-delay), for the
// browsing client, the one of checks and those of the syncs open (each
// with its Source's limits) together, by host: what the explorer's status
// bar shows when fetching is held back rather than slow. Nil when nothing
// was.
func (s *Session) Throttled() []fetch.Throttle {
	var out []fetch.Throttle
	clients := []any{s.get, s.opts.Dest.Client}
	s.syncsMu.Lock()
	for c := range s.syncClients {
		clients = append(clients, c)
	}
	s.syncsMu.Unlock()
	for _, c := range clients {
		if t, ok := c.(throttler); ok {
			out = append(out, t.Throttled()...)
		}
	}
	slices.SortStableFunc(out, func(a, b fetch.Throttle) int { return strings.Compare(a.Host, b.Host) })
	// One line per host: the client that waited longer tells.
	return slices.CompactFunc(out, func(a, b fetch.Throttle) bool { return a.Host == b.Host })
}
