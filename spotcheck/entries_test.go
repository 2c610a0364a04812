package spotcheck

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"rsx/claims"
	"rsx/model"
)

// parseEntries reads the entries of a document, their locs resolved as the
// explorer resolves them.
func parseEntries(t *testing.T, base, doc string) []model.Entry {
	t.Helper()
	d, err := model.Parse(strings.NewReader(strings.ReplaceAll(doc, "{{base}}", base)))
	if err != nil {
		t.Fatal(err)
	}
	return d.Entries
}

// RunEntries checks exactly the entries given, each by its own claims, and
// keeps every resource whole with the failures first.
func TestRunEntries(t *testing.T) {
	s := newTestSource(t)
	s.resource("/ok", page, "text/html")
	s.resource("/stale", "an older copy\n", "text/html")
	s.handle("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) })
	s.resource("/not-gone", page, "text/html")
	entries := parseEntries(t, s.URL, urlset("changelist", "",
		entry("{{base}}/ok", declares(page, "text/html")+` change="updated"`),
		entry("{{base}}/stale", declares(page, "text/html")+` change="updated"`),
		entry("{{base}}/gone", `change="deleted"`),
		entry("{{base}}/not-gone", `change="deleted"`),
		entry("relative/loc", `change="created"`),
		entry("{{base}}/skipped", `change="created"`),
	))
	o := Options{KeepResources: true, Exclude: []*regexp.Regexp{regexp.MustCompile("/skipped$")}}
	rep, err := New(testClient(t), o).RunEntries(context.Background(), s.URL+"/cl.xml", entries)
	if err != nil {
		t.Fatal(err)
	}
	if rep.URL != s.URL+"/cl.xml" || rep.Selected != 5 || rep.Checked != 5 || rep.Excluded != 1 || !rep.Complete() {
		t.Errorf("url %s, selected %d, checked %d, excluded %d, complete %v", rep.URL, rep.Selected, rep.Checked, rep.Excluded, rep.Complete())
	}
	var order []string
	for _, r := range rep.Resources {
		order = append(order, strings.TrimPrefix(r.URL, s.URL)+" "+r.Verdict.String())
	}
	want := []string{"/not-gone mismatch", "/stale mismatch", "relative/loc unchecked", "/gone ok", "/ok ok"}
	if strings.Join(order, ", ") != strings.Join(want, ", ") {
		t.Errorf("resources:\n%s\nwant:\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range rep.Resources {
		switch strings.TrimPrefix(r.URL, s.URL) {
		case "/gone", "/not-gone":
			if !r.Gone || !r.Changed {
				t.Errorf("%s: gone %v, changed %v", r.URL, r.Gone, r.Changed)
			}
		case "relative/loc":
			if r.Unfetchable == "" || len(r.Result.Results) != 0 {
				t.Errorf("relative loc: %+v", r)
			}
		case "/stale":
			if c, ok := r.Result.Primary().Find("md5"); !ok || c.Verdict != claims.Mismatch {
				t.Errorf("stale md5: %+v", c)
			}
		}
	}
	if got := findings(s.URL, rep.Mismatched); len(got) == 0 {
		t.Error("no mismatch reported")
	}
}

// With Sample, a seeded sample of the entries is checked; without entries
// there is nothing to do.
func TestRunEntriesSampleAndNone(t *testing.T) {
	s := newTestSource(t)
	s.resource("/r", page, "text/html")
	var es []string
	for range 30 {
		es = append(es, entry("{{base}}/r", declares(page, "text/html")))
	}
	entries := parseEntries(t, s.URL, urlset("resourcelist", "", es...))
	rep, err := New(testClient(t), Options{Sample: 7, Seed: 1}).RunEntries(context.Background(), "doc", entries)
	if err != nil || rep.Selected != 7 || rep.Checked != 7 || rep.Listed != 30 || len(rep.Resources) != 0 {
		t.Errorf("sample: %v, selected %d, checked %d, listed %d, kept %d", err, rep.Selected, rep.Checked, rep.Listed, len(rep.Resources))
	}
	if _, err := New(testClient(t), Options{}).RunEntries(context.Background(), "doc", nil); !errors.Is(err, ErrNoEntries) {
		t.Errorf("no entries: %v", err)
	}
}
