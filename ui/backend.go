package ui

import (
	"context"
	"errors"
	"io"

	"rsx/fetch"
)

// Backend does every I/O of the program: fetching, discovering, parsing. Its
// methods block and must be called only from inside a tea.Cmd, with a
// context the user can cancel (esc).
//
// Test fakes embed NopBackend and override the methods they need, so that
// methods added here later do not break them.
type Backend interface {
	// Download streams the body of url (an http(s) URL or a local file path)
	// into w, reporting progress (total is -1 when unknown), and returns the
	// record of the HTTP exchange (nil for a local file).
	Download(ctx context.Context, url string, w io.Writer, progress func(done, total int64)) (*fetch.Exchange, error)

	// Exchanges returns copies of the HTTP exchanges made so far, oldest first.
	Exchanges() []*fetch.Exchange
}

// errNoBackend is returned by NopBackend.
var errNoBackend = errors.New("no backend: this build cannot fetch")

// NopBackend implements Backend by failing every call. Embed it in fakes.
type NopBackend struct{}

// Download fails.
func (NopBackend) Download(context.Context, string, io.Writer, func(int64, int64)) (*fetch.Exchange, error) {
	return nil, errNoBackend
}

// Exchanges returns none.
func (NopBackend) Exchanges() []*fetch.Exchange { return nil }
