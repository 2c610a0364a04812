package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rsx/dest/store"
)

// hostile is a Source whose resources answer as the test says: a
// Capability List, a Resource List of the entries given, and a handler per
// resource path.
type hostile struct {
	srv     *httptest.Server
	mu      sync.Mutex
	entries []string // Resource List entries, {{base}} for the server's URL
	at      string
	routes  map[string]http.HandlerFunc
}

func newHostile(t *testing.T) *hostile {
	t.Helper()
	h := &hostile{routes: map[string]http.HandlerFunc{}, at: "2030-01-01T10:00:00Z"}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostile) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	route := h.routes[r.URL.Path]
	rl := resourceList(h.at, h.entries...)
	h.mu.Unlock()
	switch {
	case route != nil:
		route(w, r)
	case r.URL.Path == "/cap.xml":
		io.WriteString(w, strings.ReplaceAll(capList(map[string]string{"resourcelist": "/rl.xml"}), "{{base}}", h.srv.URL))
	case r.URL.Path == "/rl.xml":
		io.WriteString(w, strings.ReplaceAll(rl, "{{base}}", h.srv.URL))
	default:
		http.NotFound(w, r)
	}
}

// add lists a resource at path (md: its rs:md attributes, "" for none)
// answered by handler.
func (h *hostile) add(path, md string, handler http.HandlerFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := fmt.Sprintf("<url><loc>{{base}}%s</loc><lastmod>2030-01-01T09:00:00Z</lastmod>", path)
	if md != "" {
		e += "<rs:md " + md + "/>"
	}
	h.entries = append(h.entries, e+"</url>\n")
	h.routes[path] = handler
}

func (h *hostile) cap() string { return h.srv.URL + "/cap.xml" }

// body answers with b.
func body(b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { w.Write(b) }
}

// runBounded plans and runs a sync of target into dir with o, failing the
// test if the run does not end within limit.
func runBounded(t *testing.T, dir string, target string, o Options, po PlanOptions, limit time.Duration) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(ctx, st, testClient(t), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(ctx, target, po)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	defer p.Close()
	started := time.Now()
	res, err := s.Run(ctx, p)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.Stopped != "" {
		t.Fatalf("the run was stopped after %v: %s%s", time.Since(started).Round(time.Millisecond), res.Stopped, failures(res))
	}
	return res
}

// failureOf is the failure of the resource at path, or nil.
func failureOf(res *Result, base, path string) *Failure {
	for i := range res.Failed {
		if res.Failed[i].URL == base+path {
			return &res.Failed[i]
		}
	}
	return nil
}

// reservedBytes is what DEST/.rsx/tmp and DEST/.rsx/rejected hold.
func reservedBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, sub := range []string{"tmp", "rejected"} {
		filepath.WalkDir(filepath.Join(dir, ".rsx", sub), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
	}
	return n
}

// A listed resource that redirects to another host is not followed there
// (the other host gets no request): it fails, naming both URLs and the flag
// that allows it. Redirects within the authority are followed; with
// AllowOtherHosts every redirect is.
func TestRedirectOutsideTheAuthority(t *testing.T) {
	var foreignHits atomic.Int64
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		io.WriteString(w, "instance credentials")
	}))
	t.Cleanup(foreign.Close)
	metadata := foreign.URL + "/latest/meta-data/iam"

	h := newHostile(t)
	h.add("/r/away", "", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, metadata, http.StatusFound) })
	h.add("/r/hop", "", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/r/hop2", http.StatusFound) })
	h.routes["/r/hop2"] = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, metadata, http.StatusTemporaryRedirect)
	}
	h.add("/r/moved", "", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/r/real", http.StatusMovedPermanently)
	})
	h.routes["/r/real"] = body([]byte("at home"))
	base := h.srv.URL
	hostDir := strings.ReplaceAll(strings.TrimPrefix(base, "http://"), ":", "+")

	dir := t.TempDir()
	res := runBounded(t, dir, h.cap(), Options{}, PlanOptions{}, 10*time.Second)
	if n := foreignHits.Load(); n != 0 {
		t.Errorf("the host outside the authority was asked %d times", n)
	}
	if res.OK() || res.FailedCount != 2 {
		t.Errorf("ok %v, %d failed:%s", res.OK(), res.FailedCount, failures(res))
	}
	for _, p := range []string{"/r/away", "/r/hop"} {
		f := failureOf(res, base, p)
		if f == nil {
			t.Errorf("%s did not fail", p)
			continue
		}
		msg := f.Error()
		for _, want := range []string{base + p, metadata, "outside the Source's authority", "--allow-other-hosts"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the failure %q does not say %q", p, msg, want)
			}
		}
		if p == "/r/hop" && !strings.Contains(msg, "(by "+base+"/r/hop2)") {
			t.Errorf("%s: the failure %q does not name the hop that redirected", p, msg)
		}
		if _, err := os.Stat(filepath.Join(dir, hostDir, "r", p[3:])); err == nil {
			t.Errorf("%s is in the copy", p)
		}
	}
	if got := string(readFile(t, dir, hostDir+"/r/moved")); got != "at home" {
		t.Errorf("the redirect within the authority: %q", got)
	}

	// --allow-other-hosts: the redirects are followed.
	dir2 := t.TempDir()
	res = runBounded(t, dir2, h.cap(), Options{}, PlanOptions{AllowOtherHosts: true}, 10*time.Second)
	if !res.OK() {
		t.Fatalf("with AllowOtherHosts:%s", failures(res))
	}
	if got := string(readFile(t, dir2, hostDir+"/r/away")); got != "instance credentials" {
		t.Errorf("with AllowOtherHosts: %q", got)
	}
}

// A body with no declared length is bounded by MaxSize: one longer fails,
// names the limit and the flag, and leaves nothing behind; the good copy
// stays. A declared length is not held to MaxSize.
func TestMaxSize(t *testing.T) {
	h := newHostile(t)
	var mu sync.Mutex
	open := []byte("small and good")
	h.add("/r/open", "", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := open
		mu.Unlock()
		w.Write(b)
	})
	big := bytes.Repeat([]byte("0123456789abcdef"), 20<<10) // 320 KiB
	h.add("/r/declared", fmt.Sprintf(`length="%d"`, len(big)), body(big))
	base := h.srv.URL
	hostDir := strings.ReplaceAll(strings.TrimPrefix(base, "http://"), ":", "+")
	o := Options{MaxSize: 100 << 10}

	dir := t.TempDir()
	if res := runBounded(t, dir, h.cap(), o, PlanOptions{}, 10*time.Second); !res.OK() {
		t.Fatalf("first run:%s", failures(res))
	}
	// The Source now answers with an endless-looking body of no declared length.
	mu.Lock()
	open = big
	h.at = "2030-01-02T10:00:00Z"
	h.entries[0] = strings.Replace(h.entries[0], "2030-01-01T09:00:00Z", "2030-01-02T09:00:00Z", 1)
	mu.Unlock()
	res := runBounded(t, dir, h.cap(), o, PlanOptions{Mode: ModeBaseline}, 10*time.Second)
	f := failureOf(res, base, "/r/open")
	if f == nil || res.FailedCount != 1 {
		t.Fatalf("%d failed:%s", res.FailedCount, failures(res))
	}
	for _, want := range []string{base + "/r/open", "100 KiB", "declares no length", "--max-size"} {
		if !strings.Contains(f.Error(), want) {
			t.Errorf("the failure %q does not say %q", f.Error(), want)
		}
	}
	if got := string(readFile(t, dir, hostDir+"/r/open")); got != "small and good" {
		t.Errorf("the copy now holds %d bytes", len(got))
	}
	if n := reservedBytes(t, dir); n != 0 {
		t.Errorf("%d bytes left in .rsx/tmp and .rsx/rejected", n)
	}
	if got := readFile(t, dir, hostDir+"/r/declared"); !bytes.Equal(got, big) {
		t.Errorf("the resource of declared length: %d bytes", len(got))
	}
}

// gzipOf is a gzip stream of n zero bytes.
func gzipOf(n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(make([]byte, n))
	zw.Close()
	return b.Bytes()
}

// A gzip bomb sent as Content-Encoding although rsx asks for identity is
// decoded only up to the bound (MaxSize, or the declared length): memory
// and disk stay bounded, and the run reports it.
func TestGzipBomb(t *testing.T) {
	bomb := gzipOf(64 << 20) // 64 MiB of zeros in 64 KB
	bombHandler := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	}
	h := newHostile(t)
	h.add("/r/bomb", "", bombHandler)
	h.add("/r/declared-bomb", `length="100"`, bombHandler)
	base := h.srv.URL

	dir := t.TempDir()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := runBounded(t, dir, h.cap(), Options{MaxSize: 1 << 20}, PlanOptions{}, 20*time.Second)
	runtime.ReadMemStats(&after)
	if res.FailedCount != 2 {
		t.Fatalf("%d failed:%s", res.FailedCount, failures(res))
	}
	if f := failureOf(res, base, "/r/bomb"); f == nil || !strings.Contains(f.Error(), "larger than 1.0 MiB") || !strings.Contains(f.Error(), "--max-size") {
		t.Errorf("the bomb: %v", f)
	}
	if f := failureOf(res, base, "/r/declared-bomb"); f == nil || f.Kind != KindVerify {
		t.Errorf("the bomb of declared length: %v", f)
	}
	if len(files(t, dir)) != 0 {
		t.Errorf("the copy holds %v", files(t, dir))
	}
	// What the declared bomb left for inspection is its declared length and
	// the margin; of the other, nothing.
	if n := reservedBytes(t, dir); n > 100+64<<10 {
		t.Errorf("%d bytes in .rsx/tmp and .rsx/rejected", n)
	}
	if res.Bytes > 2<<20 {
		t.Errorf("%d bytes written", res.Bytes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 48<<20 && !raceEnabled {
		t.Errorf("%d MiB allocated", alloc>>20)
	}
}

// drip answers with a byte every period, for ever (until the client goes).
func drip(period time.Duration, chunk int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b := bytes.Repeat([]byte("."), chunk)
		for {
			if _, err := w.Write(b); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(period):
			case <-r.Context().Done():
				return
			}
		}
	}
}

// A body that drips fails at the stall timeout; one that flows but never
// ends fails at the resource timeout. Neither holds the run (or the lock).
func TestStallAndResourceTimeout(t *testing.T) {
	h := newHostile(t)
	h.add("/r/drip", "", drip(20*time.Millisecond, 1))
	h.add("/r/endless", "", drip(10*time.Millisecond, 4096))
	h.add("/r/fine", "", body([]byte("fine")))
	base := h.srv.URL
	dir := t.TempDir()
	started := time.Now()
	res := runBounded(t, dir, h.cap(), Options{StallTimeout: 300 * time.Millisecond, ResourceTimeout: 600 * time.Millisecond}, PlanOptions{}, 10*time.Second)
	if d := time.Since(started); d > 3*time.Second {
		t.Errorf("the run took %v", d)
	}
	if res.FailedCount != 2 || res.Created != 1 {
		t.Fatalf("%d created, %d failed:%s", res.Created, res.FailedCount, failures(res))
	}
	if f := failureOf(res, base, "/r/drip"); f == nil || !strings.Contains(f.Error(), "stalled") || !strings.Contains(f.Error(), "300ms") || !strings.Contains(f.Error(), "--stall-timeout") {
		t.Errorf("the drip: %v", f)
	}
	if f := failureOf(res, base, "/r/endless"); f == nil || !strings.Contains(f.Error(), "not fetched within 600ms") || !strings.Contains(f.Error(), "--resource-timeout") {
		t.Errorf("the endless body: %v", f)
	}
	if n := reservedBytes(t, dir); n != 0 {
		t.Errorf("%d bytes left in .rsx/tmp and .rsx/rejected", n)
	}
	// The lock was released: another session opens at once.
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(context.Background(), st, testClient(t), Options{})
	if err != nil {
		t.Fatalf("the destination is still held: %v", err)
	}
	s.Close()
}

// The explorer opens sessions with zero Options: the bounds apply there
// too, the whole fetch's bound scaled by the declared length.
func TestBoundsByDefault(t *testing.T) {
	o := Options{}.withDefaults()
	if o.MaxSize != DefaultMaxSize || o.StallTimeout != DefaultStallTimeout || o.ResourceTimeout != 0 {
		t.Errorf("defaults: %d, %v, %v", o.MaxSize, o.StallTimeout, o.ResourceTimeout)
	}
	if o := (Options{MaxSize: -1}).withDefaults(); o.MaxSize != -1 {
		t.Errorf("no bound: %d", o.MaxSize)
	}
	for _, tc := range []struct {
		o               Options
		declared, limit int64
		want            time.Duration
	}{
		{Options{}, 0, 0, 10 * time.Minute},
		{Options{}, 100e6, 0, 10*time.Minute + 3052*time.Second},
		{Options{}, 1 << 30, 0, 10*time.Minute + 32768*time.Second},
		{Options{}, -1, 256 << 20, 10*time.Minute + 8192*time.Second}, // no length declared: the time of --max-size
		{Options{}, -1, 0, 10*time.Minute + 8192*time.Second},
		{Options{ResourceTimeout: time.Minute}, 1 << 30, 0, time.Minute},
		{Options{ResourceTimeout: NoResourceTimeout}, 1 << 30, 0, 0},
		{Options{ResourceTimeout: -5}, 1 << 30, 0, 0},
	} {
		if got := tc.o.withDefaults().resourceTimeout(tc.declared, tc.limit); got.Round(time.Second) != tc.want.Round(time.Second) {
			t.Errorf("%+v, declared %d, limit %d: %v; want %v", tc.o.ResourceTimeout, tc.declared, tc.limit, got, tc.want)
		}
	}
}

// A Source whose bodies flow just fast enough to pass the stall timeout (a
// slowloris: a byte every few seconds, scaled down here) cannot hold the
// run: the default bound of a resource's whole fetch, scaled by its
// declared length, cuts it, while a large body on a slow link, which
// flows at a rate the bound allows, is copied whole. The default bound is
// on with no option given (here its floor and rate are scaled down, and
// the stall timeout, a minute, never fires).
func TestADripIsCutByTheDefaultBound(t *testing.T) {
	h := newHostile(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB
	h.add("/r/drip", fmt.Sprintf(`length="%d"`, 64<<10), drip(200*time.Millisecond, 1))
	h.add("/r/slow-but-honest", fmt.Sprintf(`length="%d" hash="md5:%s"`, len(big), md5hex(big)), func(w http.ResponseWriter, r *http.Request) {
		for b := big; len(b) > 0; b = b[16<<10:] {
			if _, err := w.Write(b[:16<<10]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond) // 256 KiB a second, twice the rate the bound allows
		}
	})
	base := h.srv.URL
	dir := t.TempDir()
	started := time.Now()
	// The drip declares 64 KiB: 1s + 0.5s; the honest body 256 KiB: 1s + 2s.
	res := runBounded(t, dir, h.cap(), Options{resourceFloor: time.Second, resourceRate: 128 << 10}, PlanOptions{}, 20*time.Second)
	if d := time.Since(started); d > 10*time.Second {
		t.Errorf("the run took %v", d)
	}
	if res.FailedCount != 1 || res.Created != 1 || res.ExitStatus() != 1 {
		t.Fatalf("%d created, %d failed, exit %d:%s", res.Created, res.FailedCount, res.ExitStatus(), failures(res))
	}
	if f := failureOf(res, base, "/r/drip"); f == nil || !strings.Contains(f.Error(), "not fetched within 2s, the default bound of a resource of 64 KiB (1s, and a second more for each 128 KiB declared") || !strings.Contains(f.Error(), "--resource-timeout") {
		t.Errorf("the drip: %v", f)
	}
	hostDir := strings.ReplaceAll(strings.TrimPrefix(base, "http://"), ":", "+")
	if got := readFile(t, dir, hostDir+"/r/slow-but-honest"); !bytes.Equal(got, big) {
		t.Errorf("the honest body: %d bytes", len(got))
	}
	if n := reservedBytes(t, dir); n != 0 {
		t.Errorf("%d bytes left in .rsx/tmp and .rsx/rejected", n)
	}
}

// A Resource Dump's package that drips is stalled as a resource is: the
// plan reports it, and the run ends.
func TestDumpPackageStall(t *testing.T) {
	h := newHostile(t)
	h.routes["/cap.xml"] = func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.ReplaceAll(capList(map[string]string{"resourcedump": "/rd.xml"}), "{{base}}", h.srv.URL))
	}
	h.routes["/rd.xml"] = func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.ReplaceAll(urlsetOpen+`<rs:md capability="resourcedump" at="2030-01-01T10:00:00Z"/>`+"\n"+
			`<url><loc>{{base}}/p.zip</loc><rs:md type="application/zip"/></url>`+"\n</urlset>\n", "{{base}}", h.srv.URL))
	}
	h.routes["/p.zip"] = drip(20*time.Millisecond, 1)
	started := time.Now()
	res := runBounded(t, t.TempDir(), h.srv.URL+"/rd.xml", Options{StallTimeout: 300 * time.Millisecond}, PlanOptions{BaselineFrom: FromDump}, 10*time.Second)
	if d := time.Since(started); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	if res.OK() || len(res.Plan.Problems) != 1 || !strings.Contains(res.Plan.Problems[0].Error(), "stalled") || !strings.Contains(res.Plan.Problems[0].Error(), "--stall-timeout") {
		t.Errorf("ok %v, problems %v", res.OK(), res.Plan.Problems)
	}
}
