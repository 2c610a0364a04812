package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dribblingSource is a Source whose Capability List and Resource List
// answer at once, and whose resources send their bodies a byte at a time,
// one every tick, for as long as the client listens (a slowloris Source).
func dribblingSource(t *testing.T, tick time.Duration) string {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		switch {
		case r.URL.Path == "/cl.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, rsOpen+`<rs:md capability="capabilitylist"/><url><loc>`+base+`/rl.xml</loc><rs:md capability="resourcelist"/></url>`+rsClose)
		case r.URL.Path == "/rl.xml":
			w.Header().Set("Content-Type", "application/xml")
			var b strings.Builder
			for i := range 3 {
				fmt.Fprintf(&b, `<url><loc>%s/r/%d</loc><rs:md length="100000"/></url>`, base, i)
			}
			fmt.Fprint(w, rsOpen+`<rs:md capability="resourcelist" at="2026-01-05T09:00:00Z"/><rs:ln rel="up" href="`+base+`/cl.xml"/>`+b.String()+rsClose)
		case strings.HasPrefix(r.URL.Path, "/r/"):
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			for {
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(tick):
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A Source that dribbles its bodies for ever shares a DEST with an honest
// one, and runs first: the fleet's hold bound stops it once it has held
// the DEST that long while the honest one waits, the honest one is
// synced, and the slow one runs again after it, continuing. The run line,
// the JSON and the history say so. (Before the bound, the honest Source
// waited until the slow one's every resource had stalled out.)
func TestFleetHoldBoundSlowSource(t *testing.T) {
	slow := dribblingSource(t, 100*time.Millisecond)
	honest := startDemo(t, false)
	dir := t.TempDir()
	dest := filepath.Join(dir, "shared")
	file := filepath.Join(dir, "fleet.toml")
	os.WriteFile(file, []byte(`dest = "`+dest+`"
hold = "1s"
parallel = 4

[[source]]
name = "slow"
url = "`+slow+`/cl.xml"

[[source]]
name = "honest"
url = "`+honest+`/dataset2/capabilitylist.xml"
`), 0o644)
	start := time.Now()
	// The stall bound (the engine's, default 1m) ends the slow Source's
	// second run in the test's time.
	logFile := filepath.Join(dir, "rsx.log")
	code, out, errs := runCmd(t, "--log-file", logFile, "sync", "--sources", file, "--stall-timeout", "6s", "--json")
	took := time.Since(start)
	j := decodeOneJSON[fleetJSON](t, out, "sync --sources")
	if code != 1 || len(j.Sources) != 2 {
		t.Fatalf("exit %d (want 1: the slow Source's resources stalled)\n%s\n%s", code, out, errs)
	}
	s, h := j.Sources[0], j.Sources[1]
	if h.ExitStatus != 0 || h.Error != nil || !strings.Contains(string(h.Result), `"created": 122`) || h.Held != nil {
		t.Errorf("the honest Source: %+v %s", h, h.Result)
	}
	started, err := time.Parse(time.RFC3339, h.Started)
	if err != nil || started.Sub(start) > 4*time.Second {
		t.Errorf("the honest Source started %v after the fleet (hold 1s): %v", started.Sub(start), err)
	}
	if s.Held == nil || s.Held.Runs != 1 || s.Held.BoundSeconds != 1 || len(s.Held.Waiting) != 1 || s.Held.Waiting[0] != "honest" {
		t.Errorf("the slow Source's held: %+v", s.Held)
	}
	if s.ExitStatus != 1 || !strings.Contains(string(s.Result), "stall") {
		t.Errorf("the slow Source's last run: exit %d %s", s.ExitStatus, s.Result)
	}
	if took > 30*time.Second {
		t.Errorf("the fleet took %v", took)
	}
	// The log file keeps the cut.
	if l := logLines(t, logFile, "hold bound: a run stopped for the Sources waiting for its DEST"); len(l) != 1 || l[0]["name"] != "slow" || l[0]["bound"] != "1s" {
		t.Errorf("the log's hold-bound lines: %v", l)
	}
	// The history says why the first run stopped.
	code, out, _ = runCmd(t, "log", "--json", dest)
	if code != 0 || !strings.Contains(out, "the fleet's hold bound") {
		t.Errorf("rsx log: exit %d\n%s", code, out)
	}
	// The text says it in the cut run's line.
	os.RemoveAll(dest)
	code, out, errs = runCmd(t, "sync", "--sources", file, "--stall-timeout", "6s")
	if code != 1 || !strings.Contains(out, "[held its DEST 1s, the hold bound, while honest waited: it runs again after them]") {
		t.Errorf("text: exit %d\n%s\n%s", code, out, errs)
	}
}
