package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPartListRoundTrip: the parts come back in order, their times exact,
// from memory and from the file alike.
func TestPartListRoundTrip(t *testing.T) {
	times := []time.Time{{}, time.Date(2030, 1, 2, 3, 4, 5, 6789, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)}
	for _, max := range []int{1000, 3, 0} {
		dir := t.TempDir()
		l := &partList{max: max, dir: dir}
		var want []part
		for i := range 50 {
			p := part{url: fmt.Sprintf("http://127.0.0.1:9/rl/%d.xml?%s", i, strings.Repeat("q", i)), at: times[i%len(times)]}
			want = append(want, p)
			if err := l.add(p); err != nil {
				t.Fatal(err)
			}
		}
		if spooled := l.f != nil; spooled != (max < 50) {
			t.Errorf("max %d: spooled %v", max, spooled)
		}
		var got []part
		if err := l.each(func(p part) bool { got = append(got, p); return true }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("max %d: %d parts back, want %d", max, len(got), len(want))
		}
		for i := range want {
			if got[i].url != want[i].url || !got[i].at.Equal(want[i].at) {
				t.Errorf("max %d, part %d: %+v, want %+v", max, i, got[i], want[i])
			}
		}
		l.close()
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
			t.Errorf("max %d: left %v", max, left)
		}
	}
}

// TestResourceListIndexPartsSpooled: a plan of an index of more parts than
// it keeps in memory reads every part, reads the index to its end before
// the first part (a response held open while the parts are read would run
// into its timeout), and leaves no file behind.
func TestResourceListIndexPartsSpooled(t *testing.T) {
	const parts = 25
	var indexDone, partBeforeIndexEnd atomic.Bool
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		w.Header().Set("Content-Type", "application/xml")
		const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
		switch {
		case r.URL.Path == "/cap.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset %s><rs:md capability="capabilitylist"/><url><loc>%s/rli.xml</loc><rs:md capability="resourcelist"/></url></urlset>`, ns, base)
		case r.URL.Path == "/rli.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist"/>`+"\n", ns, base)
			for k := range parts {
				fmt.Fprintf(w, "<sitemap><loc>%s/rl/%d.xml</loc><rs:md at=\"2030-01-0%dT00:00:00Z\"/></sitemap>\n", base, k, 9-k%5)
				w.(http.Flusher).Flush()
				time.Sleep(5 * time.Millisecond)
			}
			fmt.Fprint(w, "</sitemapindex>\n")
			indexDone.Store(true)
		case strings.HasPrefix(r.URL.Path, "/rl/"):
			if !indexDone.Load() {
				partBeforeIndexEnd.Store(true)
			}
			var k int
			fmt.Sscanf(r.URL.Path, "/rl/%d.xml", &k)
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist"/>`+
				`<url><loc>%s/r/%d</loc><rs:md length="3"/></url></urlset>`, ns, base, base, k)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	s := openSession(t, dir, testClient(t), Options{partsInMemory: 4})
	p, err := s.Plan(context.Background(), srv.URL+"/cap.xml", PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Summary.Create != parts || len(p.Problems) != 0 {
		t.Errorf("plan: %+v, problems %v", p.Summary, p.Problems)
	}
	if want := time.Date(2030, 1, 5, 0, 0, 0, 0, time.UTC); !p.At.Equal(want) {
		t.Errorf("at %v, want the earliest part's, %v", p.At, want)
	}
	if partBeforeIndexEnd.Load() {
		t.Error("a part was asked for before the index was read to its end")
	}
	left, _ := filepath.Glob(filepath.Join(s.st.TempDir(), "rsx-parts-*"))
	if len(left) != 0 {
		t.Errorf("spool files left: %v", left)
	}
	if _, err := os.Stat(s.st.TempDir()); err != nil {
		t.Logf("temp dir: %v", err)
	}
}
