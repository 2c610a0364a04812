package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Path is where the exposition is served.
const Path = "/metrics"

// ParseAddr checks the address of --metrics: HOST:PORT, [IPv6]:PORT,
// :PORT (every interface) or PORT alone (the loopback interface,
// 127.0.0.1: the metrics are not offered to the network unless asked). It
// returns the address to listen on.
func ParseAddr(addr string) (string, error) {
	hint := "give HOST:PORT (127.0.0.1:9464), :PORT for every interface, or PORT for 127.0.0.1"
	if addr == "" {
		return "", fmt.Errorf("--metrics: no address: %s", hint)
	}
	if strings.Contains(addr, "/") {
		return "", fmt.Errorf("--metrics %q: an address, not a URL: %s", addr, hint)
	}
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		addr = net.JoinHostPort("127.0.0.1", addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--metrics %q: %s", addr, hint)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("--metrics %q: the port %q is not a number from 0 to 65535: %s", addr, port, hint)
	} else if n == 0 && port != "0" {
		return "", fmt.Errorf("--metrics %q: the port %q: %s", addr, port, hint)
	}
	if strings.ContainsAny(host, " \t") {
		return "", fmt.Errorf("--metrics %q: the host %q: %s", addr, host, hint)
	}
	return addr, nil
}

// Server serves the metrics over HTTP: the exposition at /metrics, a line
// saying so at /.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
	err  error
}

// Listen checks addr (ParseAddr) and listens on it: its error says when
// the address is taken or cannot be bound. Serve then serves on it.
func Listen(addr string) (net.Listener, error) {
	a, err := ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fmt.Errorf("--metrics %s: listen: %w", addr, err)
	}
	return ln, nil
}

// Serve serves m on ln until Close.
func Serve(ln net.Listener, m *Metrics) *Server {
	mux := http.NewServeMux()
	mux.Handle(Path, m.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "rsx metrics: %s (Prometheus exposition)\n", Path)
	})
	s := &Server{ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute}}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	return s
}

// Addr is the address served ("127.0.0.1:PORT").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the exposition's URL.
func (s *Server) URL() string { return "http://" + s.Addr() + Path }

// Close stops serving: the scrapes under way are given five seconds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	if s.err != nil {
		return fmt.Errorf("serve metrics on %s: %w", s.Addr(), s.err)
	}
	return err
}
