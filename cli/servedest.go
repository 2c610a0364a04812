package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/store"
	"rsx/display"
	"rsx/fleet"
	"rsx/metrics"
	"rsx/republish"
)

// defaultServeDestPort is the port of rsx serve --dest when --addr is not
// given: the demo's plus one, so that the two go together. A copy's Source
// is its URL, port included: the same port each run keeps it the same
// Source to the Destinations that copy it.
const defaultServeDestPort = defaultDemoPort + 1

// runServeDest serves the copy in --dest as a ResourceSync Source until
// interrupted (package republish).
func (a *app) runServeDest(cmd *cobra.Command, f serveFlags) error {
	for _, name := range []string{"resources", "list-size", "package-size", "broken", "tick", "seed", "start", "live-change-lists", "live-change-dumps"} {
		if cmd.Flags().Changed(name) {
			return failed(fmt.Errorf("serve: --%s is for the demo Source; --dest serves a copy as it is", name))
		}
	}
	return a.serveDest(cmd.Context(), f, cmd.Flags().Changed("addr"))
}

// serveDest is runServeDest once its flags are checked; addrGiven: --addr
// was given (else the default port, or a free one when it is taken).
func (a *app) serveDest(ctx context.Context, f serveFlags, addrGiven bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if strings.TrimSpace(f.dest) == "" {
		return failed(errors.New("serve: --dest needs a destination: a folder, s3://bucket/prefix?…, or a name of the configuration file"))
	}
	if f.poll < 10*time.Millisecond {
		return failed(fmt.Errorf("serve: --poll %s: give 10ms or more", f.poll))
	}
	dest, err := a.resolveDest(strings.TrimSpace(f.dest))
	if err != nil {
		return failed(fmt.Errorf("serve: %w", err))
	}
	if f.metrics != "" {
		if _, err := metrics.ParseAddr(f.metrics); err != nil {
			return failed(fmt.Errorf("serve: %w", err))
		}
	}
	titles, err := fleetTitles(f.sources)
	if err != nil {
		return failed(err)
	}
	st, err := store.Open(ctx, dest, store.Options{ReadOnly: true, TempDir: a.tempDir(), Getenv: a.destGetenv(dest)})
	if errors.Is(err, fs.ErrNotExist) {
		return failed(fmt.Errorf("serve: there is no copy in %s, a folder that does not exist (%s makes one)", dest, command("rsx", "sync", "--dest", dest, "URL")))
	}
	if err != nil {
		return failed(fmt.Errorf("serve: %w", err))
	}
	defer st.Close()
	addr, fallback := f.addr, !addrGiven
	if fallback {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(defaultServeDestPort))
	}
	ln, note, err := listenAt(addr, fallback)
	if err != nil {
		return failed(fmt.Errorf("serve: %w", err))
	}
	base, err := serveBaseURL(f.baseURL, ln.Addr().String())
	if err != nil {
		ln.Close()
		return failed(err)
	}
	srv, err := republish.New(st, republish.Options{BaseURL: base, Titles: titles, Channels: f.channels, Poll: f.poll, TempDir: a.tempDir(),
		Note: func(msg string) { fmt.Fprintln(a.err, "rsx: "+esc(msg)) }})
	if err != nil {
		ln.Close()
		return failed(err)
	}
	defer srv.Close()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx) }()
	// The state is read before the URL is given: a DEST without a copy is
	// said at once. A run going on is waited for a little, then said.
	select {
	case <-srv.Ready():
	case err := <-ran:
		ln.Close()
		if err == nil {
			return nil // interrupted first
		}
		return failed(fmt.Errorf("serve: %w", err))
	case <-time.After(3 * time.Second):
	}
	var h http.Handler = srv
	if f.metrics != "" {
		// On an address of their own: the Source's may face the world.
		stopMetrics, err := a.startMetrics("serve", f.metrics)
		if err != nil {
			ln.Close()
			return failed(err)
		}
		defer stopMetrics()
		h = a.metrics.Served(srv)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintln(a.out, base)
	if note != "" {
		fmt.Fprintln(a.err, "rsx: "+esc(note))
	}
	a.serveDestGuide(srv, dest, base)
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-ran:
	case err := <-served:
		runErr = err
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(shut)
	if runErr != nil && !errors.Is(runErr, http.ErrServerClosed) {
		return failed(fmt.Errorf("serve: %w", runErr))
	}
	return nil
}

// serveDestGuide says on standard error what is served.
func (a *app) serveDestGuide(srv *republish.Server, dest, base string) {
	srcs := srv.Sources()
	select {
	case <-srv.Ready():
		fmt.Fprintf(a.err, "rsx: the copy in %s, republished: %s\n", esc(dest), display.Plural(len(srcs), "Source", "Sources"))
	default:
		fmt.Fprintf(a.err, "rsx: the copy in %s is being written by a run: it is served once the run ends\n", esc(dest))
	}
	fmt.Fprintf(a.err, "  Source Description  %s/.well-known/resourcesync\n", base)
	for _, s := range srcs {
		fmt.Fprintf(a.err, "  %s  (a copy of %s)\n", s[1], esc(s[0]))
	}
	if len(srcs) == 0 {
		fmt.Fprintln(a.err, "  (no Source of the copy has a finished baseline yet)")
	}
	fmt.Fprintln(a.err, "Press Ctrl-C to stop.")
}

// listenAt listens on addr; with fallback, an address another program holds
// gives a free port of the same host, and note says so.
func listenAt(addr string, fallback bool) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", addr)
	if !errors.Is(err, syscall.EADDRINUSE) {
		return ln, "", err
	}
	if !fallback {
		return nil, "", fmt.Errorf("%w (another program, perhaps an rsx serve started before, listens there: stop it, or choose another --addr)", err)
	}
	host, _, _ := net.SplitHostPort(addr)
	ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, "", err
	}
	return ln, fmt.Sprintf("%s is taken (by another rsx, or another program): the copy is served on %s this time, and a copy made from it there is another Source to one made from %s", addr, ln.Addr(), addr), nil
}

// serveBaseURL is the URL the Source is named by: --base-url, or the
// address listened on.
func serveBaseURL(given, listening string) (string, error) {
	if given == "" {
		return "http://" + listening, nil
	}
	u, err := url.Parse(given)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", failed(fmt.Errorf("serve: --base-url %q: want http(s)://HOST[:PORT][/PATH], without a query, a fragment or a user", given))
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// fleetTitles are the names a fleet file gives its Sources, by URL.
func fleetTitles(file string) (map[string]string, error) {
	if file == "" {
		return nil, nil
	}
	ff, err := fleet.Read(file)
	if err != nil {
		return nil, failed(fmt.Errorf("serve: %w", err))
	}
	titles := map[string]string{}
	for _, s := range ff.Sources {
		if s.Name != "" {
			titles[s.URL] = s.Name
		}
	}
	return titles, nil
}
