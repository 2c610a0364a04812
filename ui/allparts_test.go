package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
	"rsx/session"
	"rsx/ui/pages"
)

// apSite is an index of three parts whose entries link to mirrors; an
// entry of part 2 gives a file extension for a type (type-invalid).
func apSite() map[string]string {
	head := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`
	site := map[string]string{}
	var index strings.Builder
	index.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
	for p := 1; p <= 3; p++ {
		fmt.Fprintf(&index, "<sitemap><loc>%s/part%d.xml</loc></sitemap>\n", exHost, p)
		var b strings.Builder
		b.WriteString(head)
		for i := 1; i <= 5; i++ {
			typ := "text/html"
			if p == 2 && i == 4 {
				typ = "html"
			}
			fmt.Fprintf(&b, `<url><loc>%s/p%d/%d.html</loc><rs:md length="%d" type="%s"/><rs:ln rel="duplicate" pri="1" href="http://mirror.example.net/p%d/%d.html"/></url>`+"\n",
				exHost, p, i, 100*p+i, typ, p, i)
		}
		b.WriteString("</urlset>\n")
		site[fmt.Sprintf("/part%d.xml", p)] = b.String()
	}
	index.WriteString("</sitemapindex>\n")
	site["/index.xml"] = index.String()
	return site
}

// apSlowGetter serves like exGetter, but the first part only after a while:
// the other parts finish before it.
type apSlowGetter struct {
	*exGetter
	slow  string
	delay time.Duration
}

func (g apSlowGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	if url == g.slow {
		select {
		case <-time.After(g.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.exGetter.Get(ctx, url)
}

// apApp opens the view of all parts of apSite's index, the first part
// slower than the others, three parts at a time.
func apApp(t *testing.T, g *exGetter) (*App, *exDriver) {
	t.Helper()
	slow := apSlowGetter{exGetter: g, slow: exHost + "/part1.xml", delay: 300 * time.Millisecond}
	a := New(Options{
		Target:          exHost + "/index.xml",
		Backend:         session.NewWithGetter(slow, session.Options{BatchSize: 2}),
		Now:             func() time.Time { return exTime },
		PartConcurrency: 3,
	})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.run(a.Init())
	d.keys("a")
	if a.doc.parts == nil || a.doc.loading || a.doc.entries.Len() != 15 {
		t.Fatalf("not the loaded view of all parts: %d entries", a.doc.entries.Len())
	}
	return a, d
}

// The view of all parts lists the entries in part order, whatever order
// the parts' downloads finish in (issue 24): part 1's, then part 2's …
func TestAllPartsInPartOrder(t *testing.T) {
	a, _ := apApp(t, &exGetter{docs: apSite(), fail: map[string]error{}})
	doc := a.doc
	var got, want []string
	for p := 1; p <= 3; p++ {
		for i := 1; i <= 5; i++ {
			want = append(want, fmt.Sprintf("/p%d/%d.html", p, i))
		}
	}
	for i := range doc.entries.Len() {
		got = append(got, strings.TrimPrefix(doc.entries.Loc(i), exHost))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("entries in the order\n%s\nwant part order\n%s", strings.Join(got, " "), strings.Join(want, " "))
	}
	for i := range doc.entries.Len() {
		if part, want := colText(doc, colPart, i), fmt.Sprint(1+i/5); part != want {
			t.Errorf("row %d: part %s, want %s", i, part, want)
		}
	}
	if doc.markOf(8) == markNoProblem {
		t.Error("part 2's entry 4 (row 9) is not marked with its problem")
	}
}

// p and P open the problems of a view of all parts that the status bar
// counts (issue 24).
func TestAllPartsProblemsPage(t *testing.T) {
	a, d := apApp(t, &exGetter{docs: apSite(), fail: map[string]error{}})
	if !strings.Contains(d.screen(), "✗ ") {
		t.Fatalf("the status bar counts no problem:\n%s", d.screen())
	}
	d.keys("p")
	exWantPage(t, a, "Problems")
	if !strings.Contains(d.screen(), "part 2") {
		t.Errorf("the problems page does not say which part:\n%s", d.screen())
	}
	d.keys("esc")
	a.dv.JumpTo(8)
	d.keys("P")
	exWantPage(t, a, "Problems")
}

// Every problem the status bar counts for a view of all parts is listed on
// its problems page: a part that could not be fetched (a 404, a refused
// connection) makes the view incomplete, and the problems page says which
// part and why, as the index's own problems page does (child-unreachable).
func TestAllPartsProblemsListFailedParts(t *testing.T) {
	site := apSite()
	site["/index.xml"] = strings.Replace(site["/index.xml"], "</sitemapindex>",
		"<sitemap><loc>"+exHost+"/part4.xml</loc></sitemap>\n</sitemapindex>", 1) // part 4: 404
	g := &exGetter{docs: site, fail: map[string]error{exHost + "/part2.xml": fmt.Errorf("connection refused")}}
	a := New(Options{
		Target:          exHost + "/index.xml",
		Backend:         session.NewWithGetter(g, session.Options{BatchSize: 2}),
		Now:             func() time.Time { return exTime },
		PartConcurrency: 2,
	})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 160, Height: 40})
	d.run(a.Init())
	d.keys("a")
	if a.doc.parts == nil || a.doc.loading {
		t.Fatal("not the loaded view of all parts")
	}
	if !strings.Contains(d.screen(), "incomplete") {
		t.Fatalf("the status bar does not say the view is incomplete:\n%s", d.screen())
	}
	errs, warns := a.doc.problemCounts()
	d.keys("p")
	exWantPage(t, a, "Problems")
	doc, cross := a.pages[len(a.pages)-1].(*pages.Problems).Problems()
	listed := append(append([]model.Problem{}, doc...), cross...)
	if e, w := model.CountProblems(listed); e != errs || w != warns {
		t.Errorf("the status bar counts %d errors and %d warnings, the problems page lists %d and %d", errs, warns, e, w)
	}
	for _, want := range []string{
		"part 2: " + exHost + "/part2.xml could not be fetched: ",
		"part 4: " + exHost + "/part4.xml answered HTTP 404: ",
	} {
		i := slices.IndexFunc(listed, func(p model.Problem) bool { return strings.HasPrefix(p.Message, want) })
		if i < 0 {
			t.Errorf("no problem %q… among %d listed", want, len(listed))
		} else if listed[i].Rule != crawl.RuleChildUnreachable || listed[i].Severity != model.SeverityError {
			t.Errorf("%q is %s (%s), want an error of %s", listed[i].Message, listed[i].Rule, listed[i].Severity, crawl.RuleChildUnreachable)
		}
	}
	if !strings.Contains(d.screen(), "child-unreachable") {
		t.Errorf("the problems page does not show the failed parts' rule:\n%s", d.screen())
	}
}

// The table keeps no links; the entry under the cursor is read back from
// its part whole, and the detail pane shows its links. When the part has
// changed since, or cannot be read, the pane says so.
func TestEntryReadBack(t *testing.T) {
	g := &exGetter{docs: apSite(), fail: map[string]error{}}
	a, d := apApp(t, g)
	doc := a.doc
	if doc.entries.Links(7) != nil || doc.entries.LinkCount(7) != 1 || !doc.entries.Partial(7) {
		t.Fatalf("row 8 in the table: links %v, count %d", doc.entries.Links(7), doc.entries.LinkCount(7))
	}
	d.keys("j j j j j j j") // row 8: part 2's third entry
	if a.dv.Selected() != 7 {
		t.Fatalf("selected %d", a.dv.Selected())
	}
	if s := d.screen(); !rcPaneHas(t, s, "mirror.example.net/p2/3.html") {
		t.Fatalf("the detail pane does not show the entry's link:\n%s", s)
	}
	if e, state, _ := doc.wholeEntry(7); state != entryWhole || len(e.Links) != 1 {
		t.Fatalf("whole entry: state %d, %d links", state, len(e.Links))
	}

	// Part 3 now lists other resources; part 1 fails.
	g.docs["/part3.xml"] = strings.ReplaceAll(g.docs["/part3.xml"], "/p3/", "/moved/")
	g.fail[exHost+"/part1.xml"] = fmt.Errorf("connection refused")
	d.keys("j j j j j") // row 13: part 3
	if s := d.screen(); !rcPaneHas(t, s, "the document changed since it was loaded") {
		t.Errorf("a changed part is not told:\n%s", s)
	}
	d.keys("g") // row 1: part 1
	if s := d.screen(); !rcPaneHas(t, s, "could not read its 1 link: fetch "+exHost+"/part1.xml: connection refused") {
		t.Errorf("a part that cannot be read is not told:\n%s", s)
	}
}

// apGatedGetter, once armed, holds the first part back until released,
// and counts the parts asked for.
type apGatedGetter struct {
	*exGetter
	armed   bool // set before the load of all parts, read after
	gate    chan struct{}
	mu      sync.Mutex
	asked   map[string]bool
	waiting chan struct{} // closed once part 1 waits at the gate
	once    sync.Once
}

func (g *apGatedGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	g.mu.Lock()
	armed := g.armed
	if armed {
		g.asked[url] = true
	}
	g.mu.Unlock()
	if armed && strings.HasSuffix(url, "/part1.xml") {
		g.once.Do(func() { close(g.waiting) })
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.exGetter.Get(ctx, url)
}

func (g *apGatedGetter) parts() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for u := range g.asked {
		if strings.Contains(u, "/part") {
			n++
		}
	}
	return n
}

// While an early part is slow, the parts after it load only so far ahead:
// what waits for its turn stays bounded, whatever the number of parts.
func TestAllPartsLoadBoundedAhead(t *testing.T) {
	site := apSite()
	var index strings.Builder
	index.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
	for p := 1; p <= 20; p++ {
		fmt.Fprintf(&index, "<sitemap><loc>%s/part%d.xml</loc></sitemap>\n", exHost, p)
		if p > 3 {
			site[fmt.Sprintf("/part%d.xml", p)] = strings.ReplaceAll(site["/part3.xml"], "/p3/", fmt.Sprintf("/p%d/", p))
		}
	}
	index.WriteString("</sitemapindex>\n")
	site["/index.xml"] = index.String()
	g := &apGatedGetter{exGetter: &exGetter{docs: site, fail: map[string]error{}}, gate: make(chan struct{}),
		asked: map[string]bool{}, waiting: make(chan struct{})}
	a := New(Options{Target: exHost + "/index.xml", Backend: session.NewWithGetter(g, session.Options{}),
		Now: func() time.Time { return exTime }, PartConcurrency: 2})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.run(a.Init()) // the index, and the checks across documents
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
	// Part 1 waits at the gate; the other worker goes as far as it may.
	d.idle = 300 * time.Millisecond
	d.send(exKey("a"))
	select {
	case <-g.waiting:
	default:
		t.Fatal("part 1 was not asked for")
	}
	if n, most := g.parts(), 2*2; n > most { // 2 loaded at once, twice that ahead
		t.Errorf("%d parts asked for while part 1 waits, want at most %d", n, most)
	}
	close(g.gate)
	d.idle = 0
	d.run(nil)
	if a.doc.loading || a.doc.entries.Len() != 100 || a.doc.entries.Loc(0) != exHost+"/p1/1.html" || a.doc.entries.Loc(99) != exHost+"/p20/5.html" {
		t.Fatalf("loading %v, %d entries, first %s", a.doc.loading, a.doc.entries.Len(), a.doc.entries.Loc(0))
	}
}

// apSlowReads is the session, its entries read back only once released.
type apSlowReads struct {
	*session.Session
	release chan struct{}
}

func (b apSlowReads) ReadEntries(ctx context.Context, url string, raw []byte, indexes []int) ([]model.Entry, error) {
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.Session.ReadEntries(ctx, url, raw, indexes)
}

// enter on an entry still being read back waits for it: the resource page
// opens with the entry whole (its mirror), not with what the table holds.
func TestOpenWaitsForTheEntryWhole(t *testing.T) {
	b := apSlowReads{session.NewWithGetter(&exGetter{docs: apSite(), fail: map[string]error{}}, session.Options{}), make(chan struct{})}
	a := New(Options{Target: exHost + "/part2.xml", Backend: b, Now: func() time.Time { return exTime }})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64), idle: 200 * time.Millisecond}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.run(a.Init())
	d.keys("j enter")
	if a.pageTitle() != "" || a.doc.reading == nil {
		t.Fatalf("enter opened %q before the entry was read (reading %v)", a.pageTitle(), a.doc.reading != nil)
	}
	close(b.release)
	d.idle = 0
	d.run(nil)
	p, ok := a.active().(*pages.Resource)
	if !ok {
		t.Fatalf("no resource page once the entry was read: %q (flash %q)", a.pageTitle(), a.flash)
	}
	if ls := p.Entry().Links; len(ls) != 1 || ls[0].Href != "http://mirror.example.net/p2/2.html" {
		t.Errorf("the resource page's entry has links %+v", ls)
	}
}
