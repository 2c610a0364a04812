package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestPlanListsIndexPartsInOrder: the parts of a Resource List Index are
// read a few at once, and the plan lists their entries in part order, each
// part's in document order, whichever part's download ends first: here the
// first part answers last, and a part in the middle fails (a problem of the
// plan, in its place). The same order run after run.
func TestPlanListsIndexPartsInOrder(t *testing.T) {
	const (
		parts   = 7
		perPart = 300 // more than a batch of entries
		failing = 4
	)
	// Part k answers after a delay that makes the early parts end last.
	delay := func(k int) time.Duration { return time.Duration(parts-k) * 15 * time.Millisecond }
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		w.Header().Set("Content-Type", "application/xml")
		const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
		switch {
		case r.URL.Path == "/cap.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset %s><rs:md capability="capabilitylist"/><url><loc>%s/rli.xml</loc><rs:md capability="resourcelist"/></url></urlset>`, ns, base)
		case r.URL.Path == "/rli.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`+"\n", ns, base)
			for k := range parts {
				fmt.Fprintf(w, "<sitemap><loc>%s/rl/%d.xml</loc></sitemap>\n", base, k)
			}
			fmt.Fprint(w, "</sitemapindex>\n")
		case strings.HasPrefix(r.URL.Path, "/rl/"):
			var k int
			fmt.Sscanf(r.URL.Path, "/rl/%d.xml", &k)
			time.Sleep(delay(k))
			if k == failing {
				http.Error(w, "gone", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist"/>`, ns, base)
			// Each part lists its resources in descending order: document
			// order, not sorted order, is what the plan keeps.
			for i := perPart - 1; i >= 0; i-- {
				fmt.Fprintf(w, `<url><loc>%s/r/%d/%03d</loc><rs:md length="3"/></url>`, base, k, i)
			}
			fmt.Fprint(w, `</urlset>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)

	var want []string
	for k := range parts {
		if k == failing {
			continue
		}
		for i := perPart - 1; i >= 0; i-- {
			want = append(want, fmt.Sprintf("%s/r/%d/%03d", srv.URL, k, i))
		}
	}
	client := testClient(t)
	for run := range 2 {
		s := openSession(t, t.TempDir(), client, Options{ListConcurrency: 3, partsInMemory: 2})
		p, err := s.Plan(context.Background(), srv.URL+"/cap.xml", PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := p.Items(func(it Item) error {
			got = append(got, it.Entry.URI)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		p.Close()
		if len(got) != len(want) {
			t.Fatalf("run %d: %d items, want %d", run, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("run %d: item %d is %s, want %s (parts in index order, entries in document order)", run, i, got[i], want[i])
			}
		}
		if len(p.Problems) != 1 || !strings.HasSuffix(p.Problems[0].URL, fmt.Sprintf("/rl/%d.xml", failing)) {
			t.Errorf("run %d: problems %v, want part %d's", run, p.Problems, failing)
		}
	}
}
