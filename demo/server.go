package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server is a demo Source served over HTTP on a loopback address.
type Server struct {
	URL string // base URL, e.g. http://127.0.0.1:41234

	src    *Source
	srv    *http.Server
	cancel context.CancelFunc
	done   sync.WaitGroup
	once   sync.Once
	err    error
}

// Start serves a new demo Source on addr ("127.0.0.1:0" for a free port). Only
// loopback addresses are accepted. The server runs until Close or until ctx is
// done; with o.Tick > 0 the clock advances one step per tick meanwhile.
func Start(ctx context.Context, addr string, o Options) (*Server, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("demo: address %q: %w", addr, err)
	}
	if !isLoopback(host) {
		return nil, fmt.Errorf("demo: address %q is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo: listen on %s: %w", addr, err)
	}
	src := New(o)
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{
		URL:    "http://" + ln.Addr().String(),
		src:    src,
		cancel: cancel,
		srv: &http.Server{
			Handler:           src.Handler(),
			ReadHeaderTimeout: 10 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return ctx },
		},
	}
	s.done.Add(2)
	go func() {
		defer s.done.Done()
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	go func() {
		defer s.done.Done()
		var tick <-chan time.Time
		if o.Tick > 0 {
			t := time.NewTicker(o.Tick)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-ctx.Done():
				s.shutdown()
				return
			case <-tick:
				src.Advance(1)
			}
		}
	}()
	return s, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) shutdown() {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			s.srv.Close()
		}
	})
}

// Close stops the clock and the server, waiting briefly for requests in flight
// and for notification connections to close.
func (s *Server) Close() error {
	s.cancel()
	s.done.Wait()
	// Notification connections are hijacked: Shutdown does not end them.
	s.src.CloseNotifications(3 * time.Second)
	return s.err
}

// Source returns the demo Source behind the server.
func (s *Server) Source() *Source { return s.src }
