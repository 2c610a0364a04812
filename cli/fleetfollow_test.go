package cli

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"rsx/fleet"
)

// changingSource is a small Source on its own httptest server: one
// resource, /r/a, whose changes its open Change List announces (and its
// Resource List shows), and, when withChannel (setChannel changes it), a
// WebSocket change notification channel at /notify.
type changingSource struct {
	t           *testing.T
	srv         *httptest.Server
	withChannel bool
	t0          time.Time
	block       chan struct{} // when not nil, /r/a waits for it (or the request's end)

	mu      sync.Mutex
	version int
	changes []time.Time // when /r/a changed
	conns   []*websocket.Conn
	gets    int  // GETs of /r/a
	lists   int  // GETs of the Change List
	down    bool // every request is answered 503
}

func newChangingSource(t *testing.T, withChannel bool) *changingSource {
	t.Helper()
	s := &changingSource{t: t, withChannel: withChannel, t0: time.Now().UTC().Add(-time.Hour).Truncate(time.Second)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.drop()
		s.srv.Close()
	})
	return s
}

func (s *changingSource) capList() string { return s.srv.URL + "/cl.xml" }

func (s *changingSource) body(version int) string {
	return fmt.Sprintf("resource a, version %d\n", version)
}

func (s *changingSource) serve(w http.ResponseWriter, r *http.Request) {
	base := s.srv.URL
	s.mu.Lock()
	version, changes, withChannel := s.version, append([]time.Time(nil), s.changes...), s.withChannel
	if r.URL.Path == "/changes.xml" {
		s.lists++
	}
	down := s.down
	s.mu.Unlock()
	if down {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	dt := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	xml := func(body string) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, rsOpen+body+rsClose)
	}
	entry := func(version int, extra string) string {
		sum := md5.Sum([]byte(s.body(version)))
		return fmt.Sprintf(`<url><loc>%s/r/a</loc><rs:md hash="md5:%s" length="%d" type="text/plain"%s/></url>`,
			base, hex.EncodeToString(sum[:]), len(s.body(version)), extra)
	}
	switch r.URL.Path {
	case "/cl.xml":
		channel := ""
		if withChannel {
			channel = `<url><loc>ws` + strings.TrimPrefix(base, "http") + `/notify</loc><rs:md capability="change-notification"/></url>`
		}
		xml(`<rs:md capability="capabilitylist"/>` +
			`<url><loc>` + base + `/rl.xml</loc><rs:md capability="resourcelist"/></url>` +
			`<url><loc>` + base + `/changes.xml</loc><rs:md capability="changelist"/></url>` + channel)
	case "/rl.xml":
		at := s.t0
		if len(changes) > 0 {
			at = changes[len(changes)-1]
		}
		xml(`<rs:md capability="resourcelist" at="` + dt(at) + `"/><rs:ln rel="up" href="` + base + `/cl.xml"/>` + entry(version, ""))
	case "/changes.xml":
		var b strings.Builder
		for i, at := range changes {
			b.WriteString(entry(i+1, ` change="updated" datetime="`+dt(at)+`"`))
		}
		xml(`<rs:md capability="changelist" from="` + dt(s.t0) + `"/><rs:ln rel="up" href="` + base + `/cl.xml"/>` + b.String())
	case "/r/a":
		s.mu.Lock()
		s.gets++
		block := s.block
		s.mu.Unlock()
		if block != nil {
			select {
			case <-block:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, s.body(version))
	case "/notify":
		if !withChannel {
			http.NotFound(w, r)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		// The Source only sends; reading keeps the control frames going
		// and ends with the connection.
		for {
			if _, _, err := c.Read(context.Background()); err != nil {
				s.mu.Lock()
				s.conns = slices.DeleteFunc(s.conns, func(x *websocket.Conn) bool { return x == c })
				s.mu.Unlock()
				return
			}
		}
	default:
		http.NotFound(w, r)
	}
}

// change makes a new version of /r/a, announced by the Change List.
func (s *changingSource) change() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	s.changes = append(s.changes, s.t0.Add(time.Duration(s.version)*time.Second))
}

// notify sends a change notification of the last change to every
// subscriber.
func (s *changingSource) notify() {
	s.t.Helper()
	s.notifyPeriod(time.Time{}, time.Time{})
}

// notifyPeriod is notify with a notification that says which period's
// changes it carries (<rs:md from until>) when from is not zero.
func (s *changingSource) notifyPeriod(from, until time.Time) {
	s.t.Helper()
	s.mu.Lock()
	conns := append([]*websocket.Conn(nil), s.conns...)
	at := s.changes[len(s.changes)-1].UTC().Format(time.RFC3339)
	s.mu.Unlock()
	md := ""
	if !from.IsZero() {
		md = `<rs:md capability="changelist" from="` + from.UTC().Format(time.RFC3339) + `" until="` + until.UTC().Format(time.RFC3339) + `"/>`
	}
	msg := rsOpen + md + `<rs:ln rel="up" href="` + s.srv.URL + `/cl.xml"/>` +
		`<url><loc>` + s.srv.URL + `/r/a</loc><rs:md change="updated" datetime="` + at + `"/></url>` + rsClose
	for _, c := range conns {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.Write(ctx, websocket.MessageText, []byte(msg))
		cancel()
		if err != nil {
			s.t.Logf("notify: %v", err)
		}
	}
}

// drop closes every subscriber's connection.
func (s *changingSource) drop() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.Close(websocket.StatusGoingAway, "going away")
	}
}

func (s *changingSource) setChannel(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.withChannel = on
}

// listReads counts the GETs of the Change List.
func (s *changingSource) listReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

// changed is when the n-th change was made (1: the first).
func (s *changingSource) changed(n int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes[n-1]
}

func (s *changingSource) subscribers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// fleetFollowLine is what the tests read of a line of
// rsx sync --sources --follow --json.
type fleetFollowLine struct {
	Event         string          `json:"event"`
	Reason        string          `json:"reason"`
	Source        string          `json:"source"`
	Name          string          `json:"name"`
	Dest          string          `json:"dest"`
	Channel       string          `json:"channel"`
	Channels      []any           `json:"channels"`
	Reconnect     bool            `json:"reconnect"`
	CatchUp       bool            `json:"catch_up"`
	Notifications int             `json:"notifications"`
	Via           string          `json:"via"`
	Fallback      string          `json:"fallback"`
	Resubscribed  bool            `json:"resubscribed"`
	Interrupted   bool            `json:"interrupted"`
	ExitStatus    int             `json:"exit_status"`
	Error         *string         `json:"error"`
	Result        json.RawMessage `json:"result"`
	EverySeconds  float64         `json:"every_seconds"`
	EveryDefault  *bool           `json:"every_default"`
	Runs          *int            `json:"runs"`
}

func (l fleetFollowLine) mode() string {
	var r struct {
		Mode    string `json:"mode"`
		Updated int    `json:"updated"`
	}
	json.Unmarshal(l.Result, &r)
	return r.Mode
}

func (l fleetFollowLine) updated() int {
	var r struct {
		Updated int `json:"updated"`
	}
	json.Unmarshal(l.Result, &r)
	return r.Updated
}

// fleetFollower is rsx sync --sources FILE --follow --json running in the
// test's process, stopped by cancelling its context (as SIGINT stops it).
type fleetFollower struct {
	t      *testing.T
	out    lockedBuf
	errb   lockedBuf
	cancel context.CancelFunc
	done   chan struct{} // closed when the run returned code
	code   int
}

func startFleetFollow(t *testing.T, file string, args ...string) *fleetFollower {
	t.Helper()
	return startFleetFollowTimes(t, fleetTimes{minEvery: time.Millisecond}, file, args...)
}

func startFleetFollowTimes(t *testing.T, times fleetTimes, file string, args ...string) *fleetFollower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fleetFollower{t: t, cancel: cancel, done: make(chan struct{})}
	all := append([]string{"--no-cache", "--rate", "0", "--retries", "0", "sync", "--sources", file, "--follow", "--json"}, args...)
	go func() {
		defer close(f.done)
		f.code = runWith(all, streams{in: strings.NewReader(""), out: &f.out, err: &f.errb}, func(a *app) {
			a.base = ctx
			a.fleetTimes = times
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-f.done:
		case <-time.After(20 * time.Second):
		}
	})
	return f
}

func (f *fleetFollower) lines() []fleetFollowLine {
	f.t.Helper()
	var out []fleetFollowLine
	sc := bufio.NewScanner(strings.NewReader(f.out.String()))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l fleetFollowLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			f.t.Fatalf("a line that is not JSON: %v\n%s", err, sc.Text())
		}
		out = append(out, l)
	}
	return out
}

// wait waits until match accepts n lines.
func (f *fleetFollower) wait(n int, d time.Duration, what string, match func(fleetFollowLine) bool) []fleetFollowLine {
	f.t.Helper()
	deadline := time.Now().Add(d)
	for {
		var got []fleetFollowLine
		for _, l := range f.lines() {
			if match(l) {
				got = append(got, l)
			}
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no %s within %v:\n%s\nstderr:\n%s", what, d, f.out.String(), f.errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (f *fleetFollower) count(match func(fleetFollowLine) bool) int {
	n := 0
	for _, l := range f.lines() {
		if match(l) {
			n++
		}
	}
	return n
}

// stop cancels the fleet (SIGINT's equivalent) and returns its exit status.
func (f *fleetFollower) stop() int {
	f.t.Helper()
	f.cancel()
	select {
	case <-f.done:
		return f.code
	case <-time.After(15 * time.Second):
		f.t.Fatalf("the fleet did not stop within 15s of its context's end:\n%s\nstderr:\n%s", f.out.String(), f.errb.String())
		return -1
	}
}

func runOf(src *changingSource, reason string) func(fleetFollowLine) bool {
	return func(l fleetFollowLine) bool {
		return l.Event == "run" && l.Source == src.capList() && (reason == "" || l.Reason == reason)
	}
}

func writeFleet(t *testing.T, dir string, sources ...*changingSource) string {
	t.Helper()
	var b strings.Builder
	for i, s := range sources {
		fmt.Fprintf(&b, "[[source]]\nname = \"s%d\"\nurl = %q\ndest = %q\n\n", i, s.capList(), filepath.Join(dir, fmt.Sprintf("copy%d", i)))
	}
	file := filepath.Join(dir, "fleet.toml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// A notification of one Source brings one incremental run of that Source
// only; notifications that come close together bring one run.
func TestSyncSourcesFollowNotification(t *testing.T) {
	a, b, c := newChangingSource(t, true), newChangingSource(t, true), newChangingSource(t, false)
	dir := t.TempDir()
	file := writeFleet(t, dir, a, b, c)
	f := startFleetFollow(t, file, "--every", "1h", "--debounce", "200ms")
	for _, s := range []*changingSource{a, b, c} {
		l := f.wait(1, 20*time.Second, "start run of "+s.capList(), runOf(s, fleet.ReasonStart))[0]
		if l.ExitStatus != 0 || l.mode() != "baseline" {
			t.Fatalf("start run of %s: exit %d, mode %q: %+v", s.capList(), l.ExitStatus, l.mode(), l)
		}
	}
	f.wait(2, 5*time.Second, "the connections of the channels", func(l fleetFollowLine) bool { return l.Event == "connected" })
	if p := f.wait(1, 5*time.Second, "polled line", func(l fleetFollowLine) bool { return l.Event == "polled" })[0]; p.Source != c.capList() || p.EverySeconds != 3600 {
		t.Errorf("polled: %+v", p)
	}
	if a.subscribers() != 1 || b.subscribers() != 1 {
		t.Fatalf("subscribers: %d %d", a.subscribers(), b.subscribers())
	}

	a.change()
	a.notify()
	l := f.wait(1, 10*time.Second, "run of a after its notification", runOf(a, fleet.ReasonNotification))[0]
	if l.ExitStatus != 0 || l.mode() != "incremental" || l.updated() != 1 || l.Notifications != 1 {
		t.Errorf("run after the notification: exit %d, mode %q, updated %d, notifications %d\n%s", l.ExitStatus, l.mode(), l.updated(), l.Notifications, l.Result)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "copy0", strings.TrimPrefix(a.srv.URL, "http://"), "r", "a")); err != nil || string(got) != a.body(1) {
		// The path mapping is the engine's: find the file wherever it is.
		found := ""
		filepath.WalkDir(filepath.Join(dir, "copy0"), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Name() == "a" && !d.IsDir() {
				b, _ := os.ReadFile(p)
				found = string(b)
			}
			return nil
		})
		if found != a.body(1) {
			t.Errorf("the copy of /r/a holds %q, want %q", found, a.body(1))
		}
	}

	// Three notifications at once: one run.
	a.change()
	a.notify()
	a.notify()
	a.notify()
	f.wait(2, 10*time.Second, "run of a after the burst", runOf(a, fleet.ReasonNotification))
	time.Sleep(600 * time.Millisecond) // three debounces: a second run would have started
	runs := f.wait(2, time.Second, "runs of a", runOf(a, fleet.ReasonNotification))
	if len(runs) != 2 || runs[1].Notifications != 3 || runs[1].updated() != 1 {
		t.Errorf("the burst of three notifications brought %d runs (the last answering %d notifications, %d updated)", len(runs)-1, runs[len(runs)-1].Notifications, runs[len(runs)-1].updated())
	}
	// No run of b or c but their first.
	if n := f.count(runOf(b, "")); n != 1 {
		t.Errorf("b ran %d times, want once (its start)", n)
	}
	if n := f.count(runOf(c, "")); n != 1 {
		t.Errorf("c ran %d times, want once (its start)", n)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d after the stop:\n%s", code, f.errb.String())
	}
	ls := f.lines()
	if last := ls[len(ls)-1]; last.Event != "stopped" || last.Runs == nil || *last.Runs != 5 {
		t.Errorf("last line: %+v", last)
	}
	// Every run is in its DEST's history.
	code, out, errs := runCmd(t, "log", "--json", filepath.Join(dir, "copy0"))
	if code != 0 || strings.Count(out, `"mode"`) < 3 {
		t.Errorf("rsx log of a's copy: exit %d\n%s\n%s", code, out, errs)
	}
}

// A channel that drops reconnects, and a run catches up what it missed.
func TestSyncSourcesFollowReconnects(t *testing.T) {
	a := newChangingSource(t, true)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "rsx.log")
	f := startFleetFollow(t, writeFleet(t, dir, a), "--every", "1h", "--debounce", "50ms", "--log-file", logFile)
	f.wait(1, 20*time.Second, "start run", runOf(a, fleet.ReasonStart))
	// A change the Source makes while the channel is down: no
	// notification will bring it.
	a.change()
	a.drop()
	f.wait(1, 10*time.Second, "drop", func(l fleetFollowLine) bool { return l.Event == "disconnected" })
	rc := f.wait(1, 10*time.Second, "reconnection", func(l fleetFollowLine) bool { return l.Event == "connected" && l.Reconnect })[0]
	if !rc.CatchUp {
		t.Errorf("reconnection without a catch-up: %+v", rc)
	}
	l := f.wait(1, 10*time.Second, "catch-up run", runOf(a, fleet.ReasonReconnected))[0]
	if l.ExitStatus != 0 || l.mode() != "incremental" || l.updated() != 1 {
		t.Errorf("catch-up run: exit %d, mode %q, updated %d\n%s", l.ExitStatus, l.mode(), l.updated(), l.Result)
	}
	// The new connection brings notifications as the first did.
	a.change()
	a.notify()
	if l := f.wait(1, 10*time.Second, "run after a notification", runOf(a, fleet.ReasonNotification))[0]; l.updated() != 1 {
		t.Errorf("run after the reconnection's notification: %s", l.Result)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	// The log file keeps the drop.
	if l := logLines(t, logFile, "notification channel dropped"); len(l) != 1 || l[0]["channel"] != "ws"+strings.TrimPrefix(a.srv.URL, "http")+"/notify" {
		t.Errorf("the log's drops: %v", l)
	}
}

// A Source without a channel is polled every --every.
func TestSyncSourcesFollowPolls(t *testing.T) {
	c := newChangingSource(t, false)
	dir := t.TempDir()
	f := startFleetFollow(t, writeFleet(t, dir, c), "--every", "300ms")
	f.wait(1, 20*time.Second, "start run", runOf(c, fleet.ReasonStart))
	c.change()
	polls := f.wait(2, 10*time.Second, "two polls", runOf(c, fleet.ReasonPoll))
	if polls[0].updated()+polls[1].updated() != 1 || polls[0].mode() != "incremental" {
		t.Errorf("polls: %s / %s", polls[0].Result, polls[1].Result)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	first := f.lines()[0]
	if first.Event != "following" || first.EverySeconds != 0.3 || first.EveryDefault == nil || *first.EveryDefault {
		t.Errorf("first line: %+v", first)
	}
}

// Stopping (SIGINT's equivalent: the context's end) while a run is under
// way ends it as SIGINT ends a sync: the DEST is left consistent and
// unlocked, and the next run finishes the copy.
func TestSyncSourcesFollowStopsCleanly(t *testing.T) {
	a := newChangingSource(t, true)
	a.block = make(chan struct{})
	dir := t.TempDir()
	f := startFleetFollow(t, writeFleet(t, dir, a), "--every", "1h")
	deadline := time.Now().Add(20 * time.Second)
	for {
		a.mu.Lock()
		gets := a.gets
		a.mu.Unlock()
		if gets > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the start run never fetched /r/a:\n%s\n%s", f.out.String(), f.errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d after a stop during a run:\n%s", code, f.errb.String())
	}
	ls := f.lines()
	var run *fleetFollowLine
	for i := range ls {
		if ls[i].Event == "run" {
			run = &ls[i]
		}
	}
	if run == nil || !run.Interrupted || ls[len(ls)-1].Event != "stopped" {
		t.Fatalf("no interrupted run, or the last line is not stopped:\n%s", f.out.String())
	}
	deadline = time.Now().Add(5 * time.Second)
	for a.subscribers() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.subscribers(); n != 0 {
		t.Errorf("%d subscriptions left after the stop", n)
	}
	close(a.block)
	a.block = nil
	code, out, errs := runCmd(t, "sync", "--json", "--dest", filepath.Join(dir, "copy0"), a.capList())
	if code != 0 || !strings.Contains(out, `"created": 1`) {
		t.Errorf("the sync after the stop: exit %d\n%s\n%s", code, out, errs)
	}
}

// Usage: --follow with --sources takes --every and --debounce, not
// --poll-interval; --debounce needs --follow.
func TestSyncSourcesFollowUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("http://127.0.0.1:1/cl.xml\n"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sync", "--sources", file, "--follow", "--poll-interval", "1m", "--dest", "/tmp/x"}, "--poll-interval is for one Source"},
		{[]string{"sync", "--sources", file, "--debounce", "1s", "--dest", "/tmp/x"}, "--debounce goes with --follow"},
		{[]string{"sync", "--debounce", "1s", "--dest", "/tmp/x", "http://127.0.0.1:1/cl.xml"}, "--debounce goes with --sources"},
		{[]string{"sync", "--sources", file, "--follow", "--every", "10s", "--dest", "/tmp/x"}, "give 1m0s or more"},
		{[]string{"sync", "--sources", file, "--follow", "--debounce", "-1s", "--dest", "/tmp/x"}, "--debounce must not be negative"},
	} {
		code, _, errs := runCmd(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// The file is read again while the fleet follows: a Source added is
// subscribed to and run, one removed is unsubscribed.
func TestSyncSourcesFollowRereadsTheFile(t *testing.T) {
	a, b := newChangingSource(t, true), newChangingSource(t, true)
	dir := t.TempDir()
	file := writeFleet(t, dir, a)
	f := startFleetFollowTimes(t, fleetTimes{minEvery: time.Millisecond, reread: 100 * time.Millisecond}, file, "--every", "1h", "--debounce", "10ms")
	f.wait(1, 20*time.Second, "start run of a", runOf(a, fleet.ReasonStart))
	writeFleet(t, dir, b) // a goes, b comes (b is s0 now, with a's DEST)
	f.wait(1, 10*time.Second, "b added", func(l fleetFollowLine) bool { return l.Event == "added" && l.Source == b.capList() })
	f.wait(1, 10*time.Second, "a removed", func(l fleetFollowLine) bool { return l.Event == "removed" && l.Source == a.capList() })
	f.wait(1, 20*time.Second, "start run of b", runOf(b, fleet.ReasonStart))
	deadline := time.Now().Add(5 * time.Second)
	for a.subscribers() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.subscribers(); n != 0 {
		t.Errorf("a removed from the file keeps %d subscriptions", n)
	}
	a.change()
	a.notify()
	b.change()
	b.notify()
	f.wait(1, 10*time.Second, "run of b after its notification", runOf(b, fleet.ReasonNotification))
	if n := f.count(runOf(a, "")); n != 1 {
		t.Errorf("a ran %d times, want once (before it left the file)", n)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// copyOf is what the copy in dest holds of /r/a ("" when none).
func copyOf(t *testing.T, dest string) string {
	t.Helper()
	found := ""
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "a" && !d.IsDir() && !strings.Contains(p, ".rsx") {
			b, _ := os.ReadFile(p)
			found = string(b)
		}
		return nil
	})
	return found
}

// auditInSync fails the test unless rsx audit finds the copy in dest in
// sync with src.
func auditInSync(t *testing.T, dest string, src *changingSource) {
	t.Helper()
	code, out, errs := runCmd(t, "--rate", "0", "audit", "--json", "--dest", dest, src.capList())
	if code != 0 || !strings.Contains(out, `"in_sync": true`) {
		t.Errorf("rsx audit of %s: exit %d\n%s\n%s", dest, code, out, errs)
	}
}

// A notification of a Source is applied as rsx sync --follow applies it:
// its change is fetched and written, the Change List is not read, the run
// is in the DEST's history, and the copy audits in sync.
func TestSyncSourcesFollowAppliesNotifications(t *testing.T) {
	a := newChangingSource(t, true)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy0")
	f := startFleetFollow(t, writeFleet(t, dir, a), "--every", "1h", "--debounce", "50ms")
	f.wait(1, 20*time.Second, "start run", runOf(a, fleet.ReasonStart))
	f.wait(1, 5*time.Second, "connection", func(l fleetFollowLine) bool { return l.Event == "connected" })
	lists := a.listReads()
	a.change()
	a.notify()
	l := f.wait(1, 10*time.Second, "run after the notification", runOf(a, fleet.ReasonNotification))[0]
	if l.ExitStatus != 0 || l.Via != "notifications" || l.Fallback != "" || l.updated() != 1 || l.mode() != "incremental" {
		t.Errorf("run after the notification: exit %d, via %q (%s), mode %q, updated %d\n%s", l.ExitStatus, l.Via, l.Fallback, l.mode(), l.updated(), l.Result)
	}
	if n := a.listReads() - lists; n != 0 {
		t.Errorf("the notification's run read the Change List %d times, want none", n)
	}
	if got := copyOf(t, dest); got != a.body(1) {
		t.Errorf("the copy holds %q, want %q", got, a.body(1))
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	auditInSync(t, dest, a)
	code, out, errs := runCmd(t, "log", "--json", dest)
	if code != 0 || !strings.Contains(out, "change notification of ws://") {
		t.Errorf("rsx log does not say the run applied a notification: exit %d\n%s\n%s", code, out, errs)
	}
}

// A notification that shows a gap (its period begins after the one before
// ended: a notification was missed) brings a run that reads the Change
// Lists, which hold the missed change; the notifications after it are
// applied alone again.
func TestSyncSourcesFollowGapReadsTheChangeLists(t *testing.T) {
	a := newChangingSource(t, true)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy0")
	logFile := filepath.Join(dir, "rsx.log")
	t.Cleanup(func() {
		// The log file keeps the fallback to the lists.
		if l := logLines(t, logFile, "notifications not applied alone: the lists are read"); len(l) != 1 || !strings.Contains(fmt.Sprint(l[0]["why"]), "a gap") {
			t.Errorf("the log's fallbacks: %v", l)
		}
	})
	f := startFleetFollow(t, writeFleet(t, dir, a), "--every", "1h", "--debounce", "50ms", "--log-file", logFile)
	f.wait(1, 20*time.Second, "start run", runOf(a, fleet.ReasonStart))
	f.wait(1, 5*time.Second, "connection", func(l fleetFollowLine) bool { return l.Event == "connected" })

	a.change()
	a.notifyPeriod(a.t0, a.changed(1))
	if l := f.wait(1, 10*time.Second, "run after the first notification", runOf(a, fleet.ReasonNotification))[0]; l.Via != "notifications" || l.updated() != 1 {
		t.Fatalf("first notification: via %q (%s), updated %d", l.Via, l.Fallback, l.updated())
	}
	a.change() // its notification is lost
	a.change()
	lists := a.listReads()
	a.notifyPeriod(a.changed(2), a.changed(3))
	l := f.wait(2, 10*time.Second, "run after the notification after the gap", runOf(a, fleet.ReasonNotification))[1]
	if l.ExitStatus != 0 || l.Via != "lists" || !strings.Contains(l.Fallback, "a gap") || l.updated() != 1 {
		t.Errorf("run after the gap: exit %d, via %q, fallback %q, updated %d\n%s", l.ExitStatus, l.Via, l.Fallback, l.updated(), l.Result)
	}
	if a.listReads() == lists {
		t.Errorf("the run after the gap did not read the Change List")
	}
	if got := copyOf(t, dest); got != a.body(3) {
		t.Errorf("the copy holds %q after the gap's run, want %q", got, a.body(3))
	}
	a.change()
	lists = a.listReads()
	a.notifyPeriod(a.changed(3), a.changed(4))
	l = f.wait(3, 10*time.Second, "run after the next notification", runOf(a, fleet.ReasonNotification))[2]
	if l.Via != "notifications" || l.updated() != 1 || a.listReads() != lists {
		t.Errorf("the notification after the gap's run: via %q (%s), updated %d, Change List read %d times", l.Via, l.Fallback, l.updated(), a.listReads()-lists)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	auditInSync(t, dest, a)
}

// A notification that is cut short (malformed) brings a run that reads the
// Change Lists.
func TestSyncSourcesFollowMalformedReadsTheChangeLists(t *testing.T) {
	a := newChangingSource(t, true)
	dir := t.TempDir()
	f := startFleetFollow(t, writeFleet(t, dir, a), "--every", "1h", "--debounce", "50ms")
	f.wait(1, 20*time.Second, "start run", runOf(a, fleet.ReasonStart))
	f.wait(1, 5*time.Second, "connection", func(l fleetFollowLine) bool { return l.Event == "connected" })
	a.change()
	a.mu.Lock()
	conns := append([]*websocket.Conn(nil), a.conns...)
	a.mu.Unlock()
	msg := rsOpen + `<rs:ln rel="up" href="` + a.capList() + `"/><url><loc>` + a.srv.URL + `/r/a</loc><rs:md change="updated" datetime="` +
		a.changed(1).Format(time.RFC3339) + `"/></url>` + rsClose
	for _, c := range conns {
		c.Write(context.Background(), websocket.MessageText, []byte(msg[:len(msg)-12]))
	}
	l := f.wait(1, 10*time.Second, "run after the cut notification", runOf(a, fleet.ReasonNotification))[0]
	if l.ExitStatus != 0 || l.Via != "lists" || !strings.Contains(l.Fallback, "errors") || l.updated() != 1 {
		t.Errorf("run after a cut notification: exit %d, via %q, fallback %q, updated %d", l.ExitStatus, l.Via, l.Fallback, l.updated())
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// A channel that a Source's Capability List comes to advertise is
// subscribed to once a run has read it, and its notifications then bring
// the Source's runs; one it stops advertising is left.
func TestSyncSourcesFollowNewChannel(t *testing.T) {
	a := newChangingSource(t, false)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy0")
	f := startFleetFollow(t, writeFleet(t, dir, a), "--every", "400ms", "--debounce", "20ms")
	f.wait(1, 20*time.Second, "start run", runOf(a, fleet.ReasonStart))
	f.wait(1, 5*time.Second, "polled line", func(l fleetFollowLine) bool { return l.Event == "polled" })
	a.setChannel(true)
	ch := f.wait(1, 10*time.Second, "the new channel", func(l fleetFollowLine) bool { return l.Event == "channels" })[0]
	if !ch.Resubscribed || len(ch.Channels) != 1 {
		t.Errorf("channels line: %+v", ch)
	}
	deadline := time.Now().Add(10 * time.Second)
	for a.subscribers() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if a.subscribers() != 1 {
		t.Fatalf("the channel the Capability List came to advertise has %d subscribers:\n%s\n%s", a.subscribers(), f.out.String(), f.errb.String())
	}
	// Its connection brings a catch-up (what changed before it was up).
	f.wait(1, 10*time.Second, "catch-up run", runOf(a, fleet.ReasonReconnected))
	a.change()
	a.notify()
	l := f.wait(1, 10*time.Second, "run after the new channel's notification", runOf(a, fleet.ReasonNotification))[0]
	if l.ExitStatus != 0 || l.Notifications != 1 {
		t.Errorf("run after the notification: %+v", l)
	}
	if got := copyOf(t, dest); got != a.body(1) {
		t.Errorf("the copy holds %q, want %q", got, a.body(1))
	}
	// The channel is no longer advertised: it is left.
	a.setChannel(false)
	f.wait(2, 10*time.Second, "the channel left", func(l fleetFollowLine) bool { return l.Event == "polled" })
	deadline = time.Now().Add(10 * time.Second)
	for a.subscribers() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.subscribers(); n != 0 {
		t.Errorf("the channel no longer advertised keeps %d subscribers", n)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// A Source whose channels could not be looked for is looked for again at
// once when its every in the file changes (not only after the old every).
func TestSyncSourcesFollowRelooksWhenEveryChanges(t *testing.T) {
	a := newChangingSource(t, true)
	a.down = true
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.toml")
	write := func(every string) {
		t.Helper()
		body := fmt.Sprintf("[[source]]\nurl = %q\ndest = %q\nevery = %q\n", a.capList(), filepath.Join(dir, "copy0"), every)
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("1h")
	f := startFleetFollowTimes(t, fleetTimes{minEvery: time.Millisecond, reread: 100 * time.Millisecond}, file, "--debounce", "10ms")
	p := f.wait(1, 20*time.Second, "polled line", func(l fleetFollowLine) bool { return l.Event == "polled" })[0]
	if p.Error == nil {
		t.Fatalf("the lookup of an unreachable Source: %+v", p)
	}
	// Its start run fails as well: no run has read its Capability List.
	if l := f.wait(1, 20*time.Second, "start run", runOf(a, fleet.ReasonStart))[0]; l.ExitStatus == 0 {
		t.Fatalf("the start run of an unreachable Source: %+v", l)
	}
	a.mu.Lock()
	a.down = false
	a.mu.Unlock()
	write("2h")
	f.wait(1, 10*time.Second, "the channels looked for again", func(l fleetFollowLine) bool { return l.Event == "channels" })
	f.wait(1, 10*time.Second, "connection", func(l fleetFollowLine) bool { return l.Event == "connected" })
	if code := f.stop(); code != 0 && code != 1 {
		t.Errorf("exit %d", code)
	}
}
