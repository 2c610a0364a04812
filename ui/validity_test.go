package ui

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/model"
	"rsx/session"
	"rsx/ui/pages"
)

// exFaultySite is exSite with a Capability List that lists a document that
// is not there (a cross-document error about its entry 2) and a Resource
// List cut short.
func exFaultySite() *exGetter {
	g := newExGetter()
	g.docs["/dataset9/capabilitylist.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="capabilitylist"/>
<rs:ln rel="up" href="` + exHost + `/.well-known/resourcesync"/>
<rs:ln rel="describedby" href="` + exHost + `/about.html"/>
  <url><loc>` + exHost + `/dataset1/resourcelist-index.xml</loc><rs:md capability="resourcelist"/></url>
  <url><loc>` + exHost + `/dataset9/changelist.xml</loc><rs:md capability="changelist"/></url>
</urlset>
`
	g.docs["/dataset9/cut.xml"] = strings.SplitAfter(g.docs["/dataset1/resourcelist-1.xml"], "</url>")[0] + "\n  <url><loc>" + exHost + "/res/x.html</lo"
	return g
}

var countRE = regexp.MustCompile(`(\d+) (error|warning)s?`)

// counts reads "N errors" and "N warnings" out of a line.
func counts(line string) map[string]string {
	out := map[string]string{}
	for _, m := range countRE.FindAllStringSubmatch(line, -1) {
		out[m[2]] = m[1]
	}
	return out
}

// The status bar, the table's marks and the problems page count the same
// problems, the cross-document ones included.
func TestOneTruthAboutValidity(t *testing.T) {
	for _, target := range []string{"/dataset9/capabilitylist.xml", "/dataset1/resourcelist-1.xml", "/.well-known/resourcesync", "/dataset1/changelist.xml"} {
		t.Run(target, func(t *testing.T) {
			a, d := exApp(t, exFaultySite(), target, 120, 40)
			lines := strings.Split(d.screen(), "\n")
			status := lines[len(lines)-2]
			doc := a.doc
			errs, warns := doc.problemCounts()
			if doc.crossState == crossChecking {
				t.Fatal("the cross-document checks did not end")
			}
			if errs+warns == 0 {
				if !strings.Contains(status, "✓ valid") {
					t.Errorf("no problems, but the status bar says %q", status)
				}
			} else if strings.Contains(status, "valid") {
				t.Errorf("%d errors, %d warnings, but the status bar says %q", errs, warns, status)
			}
			d.keys("p")
			page := d.screen()
			if got, want := counts(strings.Split(page, "\n")[1]), counts(status); errs+warns > 0 && !equalCounts(got, want) {
				t.Errorf("problems page counts %v, status bar %v\n%s", got, want, page)
			}
			// Every entry the page lists a problem for is marked, and no other.
			p := a.pages[len(a.pages)-1].(*pages.Problems)
			listed := map[int]model.Severity{}
			docPs, crossPs := p.Problems()
			for _, ps := range [][]model.Problem{docPs, crossPs} {
				for _, pr := range ps {
					if pr.Entry >= 0 && (listed[pr.Entry] == 0 || pr.Severity == model.SeverityError) {
						listed[pr.Entry] = pr.Severity
					}
				}
			}
			for i := range doc.entries.Len() {
				want := markNoProblem
				switch listed[i] {
				case model.SeverityError:
					want = markHasError
				case model.SeverityWarning:
					want = markHasWarning
				}
				if got := doc.markOf(i); got != want {
					t.Errorf("entry %d is marked %d, the problems page lists %v", i+1, got, listed[i])
				}
			}
		})
	}
}

func equalCounts(a, b map[string]string) bool {
	n := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return v
		}
		return "0"
	}
	return n(a, "error") == n(b, "error") && n(a, "warning") == n(b, "warning")
}

// A Capability List whose listed document is missing is not valid: the
// cross-document error is counted in the status bar, marks its entry and is
// on the problems page. So is the error rsx validate --recursive reports
// under the other document it lists (dataset 1's Resource List, whose up
// link points to dataset 1's Capability List): up-link-parent, at entry 1.
func TestCrossDocumentProblemsCount(t *testing.T) {
	a, d := exApp(t, exFaultySite(), "/dataset9/capabilitylist.xml", 120, 40)
	if a.doc.markOf(1) != markHasError {
		t.Fatalf("entry 2 (the missing Change List) is not marked as an error; cross %+v", a.doc.cross)
	}
	lines := strings.Split(d.screen(), "\n")
	if a.doc.markOf(0) != markHasError {
		t.Errorf("entry 1 (the Resource List that points up elsewhere) is not marked as an error; cross %+v", a.doc.cross)
	}
	if status := lines[len(lines)-2]; !strings.Contains(status, "✗ 2 errors") {
		t.Errorf("status bar %q", status)
	}
	if row := lines[4]; !strings.Contains(row, "✗") || !strings.Contains(row, "changelist.xml") {
		t.Errorf("the table row of entry 2 has no mark: %q", row)
	}
	d.keys("p")
	if s := d.screen(); !strings.Contains(s, "across documents") || !strings.Contains(s, "✗ 2 errors") || !strings.Contains(s, "up-link-parent") {
		t.Errorf("problems page:\n%s", s)
	}
}

// A document that failed to load is never "✓ valid": its error shows.
func TestFailedLoadIsNotValid(t *testing.T) {
	g := exFaultySite()
	g.fail[exHost+"/dataset1/changelist.xml"] = errors.New("connection refused")
	for _, target := range []string{"/dataset9/cut.xml", "/dataset1/changelist.xml"} {
		_, d := exApp(t, g, target, 120, 40)
		s := d.screen()
		if strings.Contains(s, "valid") {
			t.Errorf("%s: a failed load is called valid:\n%s", target, s)
		}
		if !strings.Contains(s, "incomplete") && !strings.Contains(s, "failed") {
			t.Errorf("%s: the failure is not shown:\n%s", target, s)
		}
	}
}

// enter on a problem shows its entry; esc comes back to the problems page
// at the same place; esc again closes it, and then goes back in history.
// Part 1 of the fixtures has five errors (entries 3, 10, 17 and 24, entry
// 12) and two warnings; at 40 lines every group is open and the list does
// not scroll, at 14 the groups are closed and the list scrolls once the
// last one is opened.
// (At 14 lines the detail pane leaves the list four rows.)
func TestProblemEntryAndBack(t *testing.T) {
	cases := []struct {
		name   string
		h      int
		keys   string // from the first row to the problem to open
		rule   string
		entry  int
		scroll bool
	}{
		// The type-invalid group (the errors' largest) first, then its
		// third problem.
		{"open groups", 40, "j j j", "type-invalid", 16, false},
		// G to the last group (hash-base64), enter opens it, G to its
		// last problem.
		{"scrolled", 14, "G enter G", "hash-base64", 26, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, tc.h)
			d.keys("p")
			exWantPage(t, a, "Problems")
			p := a.pages[0].(*pages.Problems)
			// The list starts under the counts line with the errors'
			// largest group.
			first := strings.Split(ansi.Strip(p.View()), "\n")[1]
			if !strings.Contains(first, "type-invalid") {
				t.Fatalf("fixture: the problems page does not list the type-invalid errors first:\n%s", ansi.Strip(p.View()))
			}
			d.keys(tc.keys)
			// The page as it is: the rows in view, the one selected.
			before := p.View()
			want := p.Selected()
			if want == nil || want.Rule != tc.rule || want.Entry != tc.entry {
				t.Fatalf("selected %+v, want the %s problem of entry %d", want, tc.rule, tc.entry+1)
			}
			if scrolled := !strings.Contains(strings.Split(ansi.Strip(before), "\n")[1], "type-invalid"); scrolled != tc.scroll {
				t.Fatalf("the case wants the list scrolled %v:\n%s", tc.scroll, ansi.Strip(before))
			}
			d.keys("enter")
			if len(a.pages) != 0 || a.dv.Selected() != want.Entry {
				t.Fatalf("enter: %d pages open, entry %d selected; want the document at entry %d", len(a.pages), a.dv.Selected()+1, want.Entry+1)
			}
			if s := d.screen(); !strings.Contains(s, "back to Problems") {
				t.Errorf("the document page does not say esc goes back to the problems:\n%s", s)
			}
			d.keys("esc")
			if len(a.pages) != 1 || a.pages[0] != p || p.View() != before {
				t.Fatalf("esc: %d pages; want the same problems page as it was:\n%s\nwas\n%s", len(a.pages), ansi.Strip(p.View()), ansi.Strip(before))
			}
			d.keys("esc")
			if len(a.pages) != 0 || strings.Contains(d.screen(), "back to Problems") {
				t.Errorf("second esc should close the problems page:\n%s", d.screen())
			}
			// L shows the line in the raw XML over the problems page: esc comes back.
			d.keys("p L")
			if len(a.pages) != 2 || a.pages[1].Title() != "Raw XML" {
				t.Fatalf("L: pages %d", len(a.pages))
			}
			d.keys("esc")
			if len(a.pages) != 1 || a.pages[0].Title() != "Problems" {
				t.Errorf("esc from the raw XML did not come back to the problems")
			}
		})
	}
}

// n and N go to the next and previous entry that has a problem.
func TestNextEntryWithAProblem(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	var marked []int
	for i := range a.doc.entries.Len() {
		if a.doc.markOf(i) != markNoProblem {
			marked = append(marked, i)
		}
	}
	if len(marked) < 2 || marked[0] == 0 {
		t.Fatalf("fixture: marked entries %v", marked)
	}
	d.keys("n")
	if got := a.dv.Selected(); got != marked[0] {
		t.Errorf("n: entry %d, want %d", got+1, marked[0]+1)
	}
	d.keys("n")
	if got := a.dv.Selected(); got != marked[1] {
		t.Errorf("n n: entry %d, want %d", got+1, marked[1]+1)
	}
	d.keys("N N")
	if got := a.dv.Selected(); got != marked[len(marked)-1] {
		t.Errorf("N wraps round: entry %d, want %d", got+1, marked[len(marked)-1]+1)
	}
	_, d2 := exApp(t, newExGetter(), "/dataset1/changelist.xml", 120, 40)
	d2.keys("n")
	if l := lastLine(d2.screen()); !strings.Contains(l, "no entry has a problem") {
		t.Errorf("n without problems: %q", l)
	}
}

// In the view of all parts of an index, the entries of each part carry
// their part's marks, at the rows they have there, and n goes to them: the
// marks count what the status bar counts.
func TestAllPartsMarkTheirProblems(t *testing.T) {
	// Both parts at once, in small batches: their entries interleave.
	a := New(Options{
		Target:          exHost + "/dataset1/resourcelist-index.xml",
		Backend:         session.NewWithGetter(newExGetter(), session.Options{BatchSize: 3}),
		Now:             func() time.Time { return exTime },
		PartConcurrency: 2,
	})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.run(a.Init())
	d.keys("a")
	doc := a.doc
	if doc.parts == nil || doc.loading {
		t.Fatal("not the loaded view of all parts")
	}
	var marked []string
	for i := range doc.entries.Len() {
		if m := doc.markOf(i); m != markNoProblem {
			marked = append(marked, fmt.Sprintf("%s %d", doc.entries.Loc(i)[len(exHost):], m))
		}
	}
	// Part 1's problems (fixture exSite), whatever order the parts arrived in.
	sort.Strings(marked)
	want := []string{"/res/003.html 2", "/res/010.html 2", "/res/012.html 2", "/res/017.html 2", "/res/020.html 1", "/res/024.html 2", "/res/027.html 1"}
	if strings.Join(marked, ", ") != strings.Join(want, ", ") {
		t.Errorf("marked %v, want %v", marked, want)
	}
	d.keys("n")
	if got := doc.entries.Loc(a.dv.Selected()); got != exHost+"/res/003.html" {
		t.Errorf("n went to %s, want the first entry with a problem", got)
	}
}
