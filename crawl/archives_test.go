package crawl

import (
	"slices"
	"strings"
	"testing"
	"time"

	"rsx/model"
)

// archiveSource is a Capability List with a Change List Index of two lists
// (one closed, one open) whose Change Lists link to the Change List Archive,
// and a Change List Archive of two closed lists that left the index, and a
// Resource List Archive.
func archiveSource(s *site) {
	upCL := ln("up", "{{base}}/cl.xml")
	toArchive := ln("archives", "{{base}}/cla.xml")
	s.xml("/sd.xml", urlset(`capability="description"`, nil, `{{base}}/cl.xml capability="capabilitylist"`))
	s.xml("/cl.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/sd.xml")},
		`{{base}}/rl.xml capability="resourcelist"`,
		`{{base}}/cli.xml capability="changelist"`,
		`{{base}}/rla.xml capability="resourcelist-archive"`,
		`{{base}}/cla.xml capability="changelist-archive"`))
	s.xml("/rl.xml", urlset(`capability="resourcelist" at="2024-07-05T00:00:00Z"`, []string{upCL, ln("archives", "{{base}}/rla.xml")}, "{{base}}/r1"))
	s.xml("/rla.xml", urlset(`capability="resourcelist-archive"`, []string{upCL},
		`{{base}}/rl-old.xml at="2024-07-01T00:00:00Z"`))
	s.xml("/rl-old.xml", urlset(`capability="resourcelist" at="2024-07-01T00:00:00Z"`, []string{upCL}, "{{base}}/r1"))
	s.xml("/cli.xml", sitemapindex(`capability="changelist" from="2024-07-03T00:00:00Z"`, []string{upCL, toArchive},
		`{{base}}/c3.xml from="2024-07-03T00:00:00Z" until="2024-07-04T00:00:00Z"`,
		`{{base}}/c4.xml from="2024-07-04T00:00:00Z"`))
	s.xml("/c3.xml", urlset(`capability="changelist" from="2024-07-03T00:00:00Z" until="2024-07-04T00:00:00Z"`,
		[]string{upCL, ln("index", "{{base}}/cli.xml"), toArchive}, `{{base}}/r1 change="updated" datetime="2024-07-03T10:00:00Z"`))
	s.xml("/c4.xml", urlset(`capability="changelist" from="2024-07-04T00:00:00Z"`,
		[]string{upCL, ln("index", "{{base}}/cli.xml"), toArchive}, `{{base}}/r1 change="updated" datetime="2024-07-04T10:00:00Z"`))
	s.xml("/cla.xml", urlset(`capability="changelist-archive"`, []string{upCL},
		`{{base}}/c1.xml from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`,
		`{{base}}/c2.xml from="2024-07-02T00:00:00Z" until="2024-07-03T00:00:00Z"`))
	for _, c := range []struct{ path, from, until string }{{"/c1.xml", "2024-07-01", "2024-07-02"}, {"/c2.xml", "2024-07-02", "2024-07-03"}} {
		s.xml(c.path, urlset(`capability="changelist" from="`+c.from+`T00:00:00Z" until="`+c.until+`T00:00:00Z"`,
			[]string{upCL, toArchive}, `{{base}}/r1 change="updated" datetime="`+c.from+`T10:00:00Z"`))
	}
}

func TestWalkArchivesIsOptIn(t *testing.T) {
	s := newSite(t)
	archiveSource(s)
	for _, walk := range []bool{false, true} {
		g := NewGraph(&testGetter{}, GraphOptions{})
		root, err := g.Walk(testCtx(t), s.URL+"/sd.xml", WalkOptions{Depth: Unlimited, Check: true, Archives: walk})
		if err != nil {
			t.Fatal(err)
		}
		var archives, archivedDocs int
		root.Walk(func(n *Node) bool {
			if n.Capability().IsArchive() {
				archives++
				if n.ArchiveNotWalked == walk || (len(n.Children) > 0) != walk || n.EntryCount == 0 {
					t.Errorf("archives %v: %s walked %v, %d children, %d entries", walk, n.URL, !n.ArchiveNotWalked, len(n.Children), n.EntryCount)
				}
			}
			if n.Parent != nil && n.Parent.Capability().IsArchive() {
				archivedDocs++
			}
			return true
		})
		if archives != 2 || (archivedDocs == 3) != walk {
			t.Errorf("archives %v: %d archive nodes, %d archived documents", walk, archives, archivedDocs)
		}
		if sk, un := root.Bounds(); sk+un != 0 {
			t.Errorf("archives %v: an archive not walked counts as a bound (%d, %d)", walk, sk, un)
		}
		if got := crossOf(root, s.URL); len(got) != 0 {
			t.Errorf("archives %v: cross-document problems in a clean Source: %v", walk, got)
		}
		for _, path := range []string{"/c1.xml", "/rl-old.xml"} {
			if hit := s.hitCount(path) > 0; hit != walk {
				t.Errorf("archives %v: %s fetched %v", walk, path, hit)
			}
		}
	}
}

func TestArchiveCrossRules(t *testing.T) {
	upCL := ln("up", "{{base}}/cl.xml")
	cla := func(entries ...string) string {
		return urlset(`capability="changelist-archive"`, []string{upCL}, entries...)
	}
	ch := func(md string) string {
		return urlset(`capability="changelist" `+md, []string{upCL}, `{{base}}/r change="updated"`)
	}
	tests := []struct {
		name string
		root string
		docs map[string]string
		want []string // "path rule entry"
	}{
		{"an archive lists a document of another capability", "/cla.xml", map[string]string{
			"/cla.xml": cla(`{{base}}/c1.xml from="2024-07-01T00:00:00Z"`),
			"/c1.xml":  urlset(`capability="resourcelist" at="2024-07-01T00:00:00Z"`, []string{upCL}, "{{base}}/r"),
		}, []string{"/cla.xml archive-child-capability 0"}},
		{"an archive entry's from differs", "/cla.xml", map[string]string{
			"/cla.xml": cla(`{{base}}/c1.xml from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`),
			"/c1.xml":  ch(`from="2024-07-01T06:00:00Z" until="2024-07-02T00:00:00Z"`),
		}, []string{"/cla.xml archive-entry-interval 0"}},
		{"an archive entry's until differs", "/cla.xml", map[string]string{
			"/cla.xml": cla(`{{base}}/c1.xml from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`),
			"/c1.xml":  ch(`from="2024-07-01T00:00:00Z" until="2024-07-03T00:00:00Z"`),
		}, []string{"/cla.xml archive-entry-interval 0"}},
		{"an archive says closed, the list is open", "/cla.xml", map[string]string{
			"/cla.xml": cla(`{{base}}/c1.xml from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`),
			"/c1.xml":  ch(`from="2024-07-01T00:00:00Z"`),
		}, []string{"/cla.xml archive-entry-interval 0"}},
		{"a Resource List Archive entry's at differs", "/rla.xml", map[string]string{
			"/rla.xml": urlset(`capability="resourcelist-archive"`, []string{upCL}, `{{base}}/rl.xml at="2024-07-01T00:00:00Z"`),
			"/rl.xml":  urlset(`capability="resourcelist" at="2024-07-02T00:00:00Z"`, []string{upCL}, "{{base}}/r"),
		}, []string{"/rla.xml archive-entry-at 0"}},
		{"an archive index of parts", "/clai.xml", map[string]string{
			"/clai.xml": sitemapindex(`capability="changelist-archive"`, []string{upCL}, "{{base}}/cla.xml"),
			"/cla.xml":  cla(`{{base}}/c1.xml from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`),
			"/c1.xml":   ch(`from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`),
		}, nil},
		{"an archive index listing Change Lists (the 2013 form)", "/clai.xml", map[string]string{
			"/clai.xml": sitemapindex(`capability="changelist-archive"`, []string{upCL}, `{{base}}/c1.xml from="2024-07-01T05:00:00Z"`),
			"/c1.xml":   ch(`from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`),
		}, []string{"/clai.xml archive-entry-interval 0", "/clai.xml archive-entry-interval 0"}},
		{"an archive index lists a Resource List Archive", "/clai.xml", map[string]string{
			"/clai.xml": sitemapindex(`capability="changelist-archive"`, []string{upCL}, "{{base}}/rla.xml"),
			"/rla.xml":  urlset(`capability="resourcelist-archive"`, []string{upCL}),
		}, []string{"/clai.xml archive-child-capability 0"}},
		{"an archives link to the wrong archive", "/cl.xml", map[string]string{
			"/cl.xml": urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/sd.xml")},
				`{{base}}/c.xml capability="changelist"`, `{{base}}/rla.xml capability="resourcelist-archive"`),
			"/c.xml":   urlset(`capability="changelist" from="2024-07-01T00:00:00Z"`, []string{upCL, ln("archives", "{{base}}/rla.xml")}),
			"/rla.xml": urlset(`capability="resourcelist-archive"`, []string{upCL}),
		}, []string{"/c.xml archives-link-capability -1"}},
		{"an archives link to a document the Capability List does not list", "/cl.xml", map[string]string{
			"/cl.xml": urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/sd.xml")},
				`{{base}}/c.xml capability="changelist"`, `{{base}}/rla.xml capability="resourcelist-archive"`),
			"/c.xml":   urlset(`capability="changelist" from="2024-07-01T00:00:00Z"`, []string{upCL, ln("archives", "{{base}}/elsewhere.xml")}),
			"/rla.xml": urlset(`capability="resourcelist-archive"`, []string{upCL}),
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t)
			for p, body := range tt.docs {
				s.xml(p, body)
			}
			g := NewGraph(&testGetter{}, GraphOptions{})
			root, err := g.Walk(testCtx(t), s.URL+tt.root, WalkOptions{Depth: Unlimited, Check: true, Archives: true})
			if err != nil {
				t.Fatal(err)
			}
			streamAgrees(t, &testGetter{}, s.URL+tt.root, WalkOptions{Depth: Unlimited, Check: true, Archives: true}, root, s.URL)
			got := crossOf(root, s.URL)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			root.Walk(func(n *Node) bool {
				for _, p := range n.Cross {
					r := rule(p.Rule)
					want := r.Section
					if n.Capability().IsArchive() {
						want = archiveSection(n.Capability()) // the section of the archive's own kind
					}
					if p.Message == "" || p.Section != want || p.Severity != r.Severity {
						t.Errorf("problem %+v against its rule %+v", p, r)
					}
				}
				return true
			})
		})
	}
}

func TestPeriods(t *testing.T) {
	s := newSite(t)
	archiveSource(s)
	s.xml("/cd.xml", urlset(`capability="changedump" from="2024-07-01T00:00:00Z"`, []string{ln("up", "{{base}}/cl.xml")},
		`{{base}}/p1.zip from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`, `{{base}}/p2.zip`))
	g := NewGraph(&testGetter{}, GraphOptions{})
	day := func(d int) time.Time { return time.Date(2024, 7, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		path string
		want []model.Period
	}{
		{"/cla.xml", []model.Period{
			{URL: s.URL + "/c1.xml", From: day(1), Until: day(2), Archived: true, Entry: 0},
			{URL: s.URL + "/c2.xml", From: day(2), Until: day(3), Archived: true, Entry: 1}}},
		{"/cli.xml", []model.Period{
			{URL: s.URL + "/c3.xml", From: day(3), Until: day(4), Entry: 0},
			{URL: s.URL + "/c4.xml", From: day(4), Entry: 1}}},
		{"/c3.xml", []model.Period{{URL: s.URL + "/c3.xml", From: day(3), Until: day(4), Entry: -1}}},
		{"/cd.xml", []model.Period{{URL: s.URL + "/p1.zip", From: day(1), Until: day(2), Entry: 0}}},
		{"/rl.xml", nil},
		{"/rla.xml", nil},
	}
	for _, tt := range tests {
		d, err := g.Load(testCtx(t), s.URL+tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := Periods(d); !slices.EqualFunc(got, tt.want, func(a, b model.Period) bool {
			return a.URL == b.URL && a.From.Equal(b.From) && a.Until.Equal(b.Until) && a.Archived == b.Archived && a.Entry == b.Entry
		}) {
			t.Errorf("%s: Periods = %+v, want %+v", tt.path, got, tt.want)
		}
	}
	if Periods(nil) != nil {
		t.Error("Periods(nil)")
	}
}

func TestLoadHistory(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 7, d, 0, 0, 0, 0, time.UTC) }
	names := func(base string, ps []model.Period) string {
		var out []string
		for _, p := range ps {
			out = append(out, strings.TrimPrefix(p.URL, base))
		}
		return strings.Join(out, " ")
	}
	t.Run("through the archives link", func(t *testing.T) {
		s := newSite(t)
		archiveSource(s)
		h, err := LoadHistory(testCtx(t), NewGraph(&testGetter{}, GraphOptions{}), s.URL+"/cli.xml", HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Archive) != 1 || names(s.URL, h.ArchivedPeriods) != "/c1.xml /c2.xml" || names(s.URL, h.LivePeriods) != "/c3.xml /c4.xml" {
			t.Fatalf("history: %d archive documents, archived %q, live %q", len(h.Archive), names(s.URL, h.ArchivedPeriods), names(s.URL, h.LivePeriods))
		}
		// A copy from the 1st at noon catches up through the archive.
		plan := h.CatchUp(day(1).Add(12 * time.Hour))
		if plan.Gap != nil || names(s.URL, plan.Lists) != "/c1.xml /c2.xml /c3.xml /c4.xml" || len(plan.Archived()) != 2 {
			t.Errorf("catch up from the 1st: %+v", plan)
		}
		// From the 3rd on, the live index suffices.
		if plan := h.CatchUp(day(3)); plan.Gap != nil || len(plan.Archived()) != 0 || names(s.URL, plan.Lists) != "/c3.xml /c4.xml" {
			t.Errorf("catch up from the 3rd: %+v", plan)
		}
		// Before the archive begins: a gap.
		if plan := h.CatchUp(day(1).Add(-time.Hour)); plan.Gap == nil || !plan.Gap.Until.Equal(day(1)) {
			t.Errorf("catch up from before the archive: %+v", plan)
		}
		all, segs := h.Coverage()
		if len(all) != 4 || len(segs) != 4 || !segs[0].From.Equal(day(1)) || !segs[3].Until.IsZero() {
			t.Errorf("coverage: %d periods, segments %+v", len(all), segs)
		}
	})
	t.Run("through the Capability List", func(t *testing.T) {
		s := newSite(t)
		archiveSource(s)
		// The index without its archives link: the Capability List advertises the archive.
		s.xml("/cli.xml", sitemapindex(`capability="changelist" from="2024-07-03T00:00:00Z"`, []string{ln("up", "{{base}}/cl.xml")},
			`{{base}}/c3.xml from="2024-07-03T00:00:00Z" until="2024-07-04T00:00:00Z"`, `{{base}}/c4.xml from="2024-07-04T00:00:00Z"`))
		h, err := LoadHistory(testCtx(t), NewGraph(&testGetter{}, GraphOptions{}), s.URL+"/cli.xml", HistoryOptions{})
		if err != nil || names(s.URL, h.ArchivedPeriods) != "/c1.xml /c2.xml" {
			t.Fatalf("history: %v %+v", err, h)
		}
	})
	t.Run("an archive index", func(t *testing.T) {
		s := newSite(t)
		archiveSource(s)
		upCL := ln("up", "{{base}}/cl.xml")
		s.xml("/cla.xml", sitemapindex(`capability="changelist-archive"`, []string{upCL}, "{{base}}/cla-1.xml", "{{base}}/cla-2.xml"))
		s.xml("/cla-1.xml", urlset(`capability="changelist-archive"`, []string{upCL}, `{{base}}/c1.xml from="2024-07-01T00:00:00Z" until="2024-07-02T00:00:00Z"`))
		s.xml("/cla-2.xml", urlset(`capability="changelist-archive"`, []string{upCL}, `{{base}}/c2.xml from="2024-07-02T00:00:00Z" until="2024-07-03T00:00:00Z"`))
		h, err := LoadHistory(testCtx(t), NewGraph(&testGetter{}, GraphOptions{}), s.URL+"/cli.xml", HistoryOptions{})
		if err != nil || len(h.Archive) != 3 || names(s.URL, h.ArchivedPeriods) != "/c1.xml /c2.xml" {
			t.Fatalf("history: %v, %d documents, %q", err, len(h.Archive), names(s.URL, h.ArchivedPeriods))
		}
		if _, err := LoadHistory(testCtx(t), NewGraph(&testGetter{}, GraphOptions{}), s.URL+"/cli.xml", HistoryOptions{MaxParts: 1}); err == nil || !strings.Contains(err.Error(), "more than 1 parts") {
			t.Errorf("MaxParts: %v", err)
		}
	})
	t.Run("no archive", func(t *testing.T) {
		s := newSite(t)
		s.xml("/cl.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/sd.xml")}, `{{base}}/c.xml capability="changelist"`))
		s.xml("/c.xml", urlset(`capability="changelist" from="2024-07-01T00:00:00Z"`, []string{ln("up", "{{base}}/cl.xml")}))
		h, err := LoadHistory(testCtx(t), NewGraph(&testGetter{}, GraphOptions{}), s.URL+"/c.xml", HistoryOptions{})
		if err != nil || len(h.Archive) != 0 || len(h.LivePeriods) != 1 || h.ArchivedPeriods != nil {
			t.Fatalf("history: %v %+v", err, h)
		}
		if plan := h.CatchUp(day(1).Add(time.Hour)); plan.Gap != nil || len(plan.Lists) != 1 {
			t.Errorf("plan %+v", plan)
		}
	})
	t.Run("failures", func(t *testing.T) {
		s := newSite(t)
		upCL := ln("up", "{{base}}/cl.xml")
		s.xml("/c.xml", urlset(`capability="changelist" from="2024-07-01T00:00:00Z"`, []string{upCL, ln("archives", "{{base}}/wrong.xml")}))
		s.xml("/wrong.xml", urlset(`capability="resourcelist-archive"`, []string{upCL}))
		s.xml("/gone.xml", urlset(`capability="changelist" from="2024-07-01T00:00:00Z"`, []string{upCL, ln("archives", "{{base}}/missing.xml")}))
		s.xml("/rl.xml", urlset(`capability="resourcelist" at="2024-07-01T00:00:00Z"`, []string{upCL}))
		g := NewGraph(&testGetter{}, GraphOptions{})
		for _, tt := range []struct {
			path    string
			history bool
			want    string
		}{
			{"/c.xml", true, "it is a Resource List Archive"},
			{"/gone.xml", true, "load the Change List Archive " + s.URL + "/missing.xml"},
			{"/rl.xml", false, "is not a Change List"},
			{"/nothing.xml", false, "404"},
		} {
			h, err := LoadHistory(testCtx(t), g, s.URL+tt.path, HistoryOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || (h != nil) != tt.history {
				t.Errorf("%s: history %v, error %v; want %q", tt.path, h != nil, err, tt.want)
			}
			if h != nil && (h.Live == nil || len(h.LivePeriods) != 1) {
				t.Errorf("%s: the live document is lost: %+v", tt.path, h)
			}
		}
	})
}
