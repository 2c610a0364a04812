package pages

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"rsx/model"
	"rsx/ui/nav"
)

func ivProblems() (doc, cross []model.Problem) {
	doc = []model.Problem{
		{Severity: model.SeverityWarning, Rule: "type-invalid", Section: "7", Message: `entry 7: type="html" is not a media type (type/subtype)`, Entry: 6, Line: 40},
		{Severity: model.SeverityError, Rule: "loc-not-absolute", Section: "7", Message: `entry 3: <loc> "res3" is not an absolute URI`, Entry: 2, Line: 18},
		{Severity: model.SeverityError, Rule: "md-at-missing", Section: "A", Message: "the document's <rs:md> has no at attribute, which a Resource List must have", Entry: -1, Line: 6},
		{Severity: model.SeverityWarning, Rule: "describedby-recommended", Section: "8", Message: "no <rs:ln rel=\"describedby\"> at document level", Entry: -1},
		{Severity: model.SeverityError, Rule: "hash-length", Section: "7", Message: "entry 1: md5 digest has 30 hex digits, expected 32 — this message is long enough that it has to be wrapped onto a second line of the detail pane, and a third one on a narrow terminal, and it is never cut: the detail pane shows the problem whole, at /a/very/long/path/that/goes/on/and/on/resource.html", Entry: 0, Line: 9},
		{Severity: model.SeverityWarning, Rule: "type-invalid", Section: "7", Message: `entry 9: type="pdf" is not a media type (type/subtype)`, Entry: 8, Line: 50},
	}
	cross = []model.Problem{
		{Severity: model.SeverityWarning, Rule: "index-link-recommended", Section: "10.1", Message: `listed in the index http://example.com/resourcelist-index.xml, but has no <rs:ln rel="index"> back to it`, Entry: -1, Line: 5},
	}
	return doc, cross
}

// ivManyProblems is a real document's kind of list: hundreds of the same
// warning and a few errors.
func ivManyProblems() []model.Problem {
	var ps []model.Problem
	for i := range 669 {
		ps = append(ps, model.Problem{Severity: model.SeverityWarning, Rule: "hash-base64", Section: "7", Message: fmt.Sprintf("entry %d: md5 digest in base64", i+1), Entry: i, Line: 10 + i})
	}
	ps = append(ps,
		model.Problem{Severity: model.SeverityError, Rule: "loc-not-absolute", Section: "7", Message: `entry 12: <loc> "x" is not an absolute URI`, Entry: 11, Line: 21},
		model.Problem{Severity: model.SeverityError, Rule: "loc-not-absolute", Section: "7", Message: `entry 40: <loc> "y" is not an absolute URI`, Entry: 39, Line: 49},
		model.Problem{Severity: model.SeverityWarning, Rule: "type-invalid", Section: "7", Message: `entry 3: type="txt" is not a media type (type/subtype)`, Entry: 2, Line: 12})
	return ps
}

// rowsOf describes the rows: "▸ rule n" for a group, "  entry" for a problem.
func rowsOf(v *Problems) []string {
	var out []string
	for _, r := range v.rows {
		if r.p == nil {
			fold := "▸"
			if v.expanded[r.g.key] {
				fold = "▾"
			}
			out = append(out, fmt.Sprintf("%s %s %s %d", fold, r.g.severity, r.g.rule, len(r.g.shown)))
			continue
		}
		out = append(out, fmt.Sprintf("  %d", r.p.Entry))
	}
	return out
}

func TestProblemsViewGolden(t *testing.T) {
	doc, cross := ivProblems()
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			tm, rec := ivRun(t, NewProblems(ivTestCommon(), doc, cross), w, h)
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "index-link-recommended") })
			ivGolden(t, fmt.Sprintf("view_problems_%dx%d", w, h), rec.Screen())

			tm.Type("j")
			tm.Send(ivKey("enter")) // the hash-length problem: entry 1
			tm.Type("jj")
			tm.Send(ivKey("enter")) // loc-not-absolute: entry 3
			tm.Type("jj")
			tm.Send(ivKey("enter")) // md-at-missing: document level, line 6 in the raw view
			tm.Type("w")
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "warnings (hidden)") })
			ivGolden(t, fmt.Sprintf("view_problems_errors_%dx%d", w, h), rec.Screen())
			// Commands run concurrently: compare the messages as a set.
			var got []string
			for _, m := range ivWaitMsgs(t, rec, 3) {
				got = append(got, fmt.Sprintf("%T%v", m, m))
			}
			sort.Strings(got)
			want := "[nav.JumpToEntryMsg{0 true} nav.JumpToEntryMsg{2 true} nav.ShowRawLineMsg{6 -1}]"
			if fmt.Sprint(got) != want {
				t.Errorf("messages = %v, want %v", got, want)
			}
		})
	}
}

// Hundreds of one warning are one group with its count; groups expand and
// collapse, and the detail pane shows the selected problem whole.
func TestProblemsViewGroupsGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			v := NewProblems(ivTestCommon(), ivManyProblems(), nil)
			v.SetSize(w, h)
			want := []string{"▸ error loc-not-absolute 2", "▸ warning hash-base64 669", "▸ warning type-invalid 1"}
			if got := rowsOf(v); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			ivGolden(t, fmt.Sprintf("view_problems_groups_%dx%d", w, h), v.View())
			ivDrive(v, ivKey("j"), ivKey("enter"), ivKey("j"), ivKey("j"))
			if p := v.Selected(); p == nil || p.Rule != "hash-base64" || p.Entry != 1 {
				t.Fatalf("selected %+v, want the second hash-base64 problem", p)
			}
			ivGolden(t, fmt.Sprintf("view_problems_expanded_%dx%d", w, h), v.View())
			ivDrive(v, ivKey("left"))
			if got := rowsOf(v); len(got) != 3 || v.list.Cursor() != 1 {
				t.Errorf("← on a problem collapses its group and selects it: %v, cursor %d", got, v.list.Cursor())
			}
		})
	}
}

func TestProblemsViewOrder(t *testing.T) {
	doc, cross := ivProblems()
	v := NewProblems(ivTestCommon(), doc, cross)
	v.SetSize(100, 30)
	want := []string{
		"▾ error hash-length 1", "  0",
		"▾ error loc-not-absolute 1", "  2",
		"▾ error md-at-missing 1", "  -1",
		"▾ warning type-invalid 2", "  6", "  8",
		"▾ warning describedby-recommended 1", "  -1",
		"▾ warning index-link-recommended 1", "  -1",
	}
	if got := rowsOf(v); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := v.Selected(); p == nil || p.Rule != "hash-length" {
		t.Errorf("first selection: %v", p)
	}
	if !v.groups[len(v.groups)-1].cross {
		t.Error("the cross-document group is not marked")
	}
}

func TestProblemsViewFilters(t *testing.T) {
	doc, cross := ivProblems()
	v := NewProblems(ivTestCommon(), doc, cross)
	v.SetSize(100, 30)
	count := func() (e, w int) {
		for _, r := range v.rows {
			if r.p == nil {
				continue
			}
			if r.p.Severity == model.SeverityError {
				e++
			} else {
				w++
			}
		}
		return
	}
	v.Update(ivKey("G")) // the last problem, a warning
	steps := []struct {
		key          string
		errs, warns  int
		selectedRule string
	}{
		{"e", 0, 4, "index-link-recommended"},
		{"w", 0, 0, ""},
		{"e", 3, 0, "hash-length"},
		{"w", 3, 4, "hash-length"},
	}
	for _, s := range steps {
		v.Update(ivKey(s.key))
		e, w := count()
		rule := ""
		if p := v.Selected(); p != nil {
			rule = p.Rule
		}
		if e != s.errs || w != s.warns || rule != s.selectedRule {
			t.Errorf("after %s: %d errors, %d warnings, selected %q; want %d, %d, %q", s.key, e, w, rule, s.errs, s.warns, s.selectedRule)
		}
	}
	// "/" keeps the rules (or messages) that contain the text: here the
	// messages of type-invalid.
	ivDrive(v, ivKey("/"), ivKey("m"), ivKey("e"), ivKey("d"), ivKey("i"), ivKey("a"), ivKey("enter"))
	if got := rowsOf(v); strings.Join(got, "|") != "▾ warning type-invalid 2|  6|  8" {
		t.Errorf("filter media: %v", got)
	}
	if !strings.Contains(v.View(), `filter "media"`) {
		t.Errorf("the counts line does not show the filter:\n%s", v.View())
	}
	ivDrive(v, ivKey("esc")) // clears the filter, the page stays
	if got := rowsOf(v); len(got) != 13 {
		t.Errorf("esc did not clear the filter: %v", got)
	}
	v.Update(ivKey("w"))
	v.Update(ivKey("e"))
	if !strings.Contains(v.View(), "every problem is hidden") {
		t.Errorf("all hidden:\n%s", v.View())
	}
	if msgs := ivDrive(v, ivKey("enter")); len(msgs) != 0 {
		t.Errorf("enter with nothing selected sent %v", msgs)
	}
}

func TestProblemsViewOpen(t *testing.T) {
	tests := []struct {
		p    model.Problem
		key  string
		want tea.Msg
	}{
		{model.Problem{Entry: 4, Line: 30}, "enter", nav.JumpToEntryMsg{Index: 4, Return: true}},
		{model.Problem{Entry: 4, Line: 30}, "L", nav.ShowRawLineMsg{Line: 30, Entry: 4}},
		{model.Problem{Entry: -1, Line: 3}, "enter", nav.ShowRawLineMsg{Line: 3, Entry: -1}},
		{model.Problem{Entry: 4}, "L", nav.FlashMsg{Text: "this problem has no line number: enter shows its entry"}},
		{model.Problem{Entry: -1}, "enter", nav.FlashMsg{Text: "this problem concerns the whole document: it has no entry or line"}},
	}
	for _, tt := range tests {
		tt.p.Severity, tt.p.Rule = model.SeverityError, "x"
		v := NewProblems(ivTestCommon(), []model.Problem{tt.p}, nil)
		v.SetSize(80, 10)
		msgs := ivDrive(v, ivKey(tt.key))
		if len(msgs) != 1 || msgs[0] != tt.want {
			t.Errorf("%+v %s: %v, want %v", tt.p, tt.key, msgs, tt.want)
		}
	}
}

// The detail pane gives a long message whole, wrapped.
func TestProblemsViewDetailIsWhole(t *testing.T) {
	doc, _ := ivProblems()
	for _, w := range []int{40, 80, 120} {
		v := NewProblems(ivTestCommon(), doc, nil)
		v.SetSize(w, 30)
		screen := strings.Join(ivLines(v.View()), "")
		for _, part := range []string{"the detail pane shows the problem whole", "resource.html"} {
			if !strings.Contains(strings.ReplaceAll(screen, " ", ""), strings.ReplaceAll(part, " ", "")) {
				t.Errorf("at width %d the detail pane cuts the message (%q missing):\n%s", w, part, v.View())
			}
		}
	}
}

func TestProblemsViewEmptyAndLarge(t *testing.T) {
	v := NewProblems(ivTestCommon(), nil, nil)
	v.SetSize(80, 10)
	if !strings.Contains(v.View(), "no problems found") {
		t.Errorf("empty:\n%s", v.View())
	}
	many := make([]model.Problem, 100000)
	for i := range many {
		many[i] = model.Problem{Severity: model.Severity(1 + i%2), Rule: "r", Section: "7", Message: "m", Entry: i}
	}
	v.SetProblems(many, nil)
	if len(v.rows) != 2 {
		t.Fatalf("100,000 problems of two kinds: %d rows, want the two groups", len(v.rows))
	}
	v.Update(ivKey("G"))
	v.Update(ivKey("enter"))
	v.Update(ivKey("G"))
	if p := v.Selected(); p == nil || p.Entry != 99999 {
		t.Errorf("G selected %+v", p)
	}
	if n := len(strings.Split(v.View(), "\n")); n != 10 {
		t.Errorf("%d lines drawn, want 10", n)
	}
}

func TestWithoutEntryPrefix(t *testing.T) {
	for _, tc := range []struct {
		entry    int
		msg, out string
	}{
		{154, `entry 155 (http://e.org/r.txt): <rs:ln> pri="0" is bad`, `<rs:ln> pri="0" is bad`},
		{6, "entry 7: lastmod is in the future", "lastmod is in the future"},
		{6, "entry 70: not this entry", "entry 70: not this entry"},
		{-1, "entry 1: document level", "entry 1: document level"},
		{0, "entry 1 (unclosed: x", "entry 1 (unclosed: x"},
	} {
		if got := WithoutEntryPrefix(&model.Problem{Entry: tc.entry, Message: tc.msg}); got != tc.out {
			t.Errorf("%q: %q, want %q", tc.msg, got, tc.out)
		}
	}
}

// The detail pane lists the selected entry's problems (rule, severity,
// section, message), the same the problems page has; P opens that page on
// A page opened on an entry (P) whose problems are too many to show every
// group open: only the entry's group is expanded, on its first problem.
func TestProblemsPageFocusEntry(t *testing.T) {
	var ps []model.Problem
	for i := range 40 {
		ps = append(ps, model.Problem{Severity: model.SeverityWarning, Rule: "hash-base64", Section: "7", Entry: i, Message: "base64"})
	}
	ps = append(ps, model.Problem{Severity: model.SeverityError, Rule: "hash-length", Section: "7", Entry: 7, Message: "length"},
		model.Problem{Severity: model.SeverityWarning, Rule: "type-invalid", Section: "7", Entry: 33, Message: "type"})
	for _, tc := range []struct {
		entry int
		rule  string
	}{{33, "hash-base64"}, {7, "hash-length"}, {39, "hash-base64"}} {
		v := NewProblems(ivTestCommon(), ps, nil)
		v.focusEntry = tc.entry
		v.SetSize(80, 20)
		p := v.Selected()
		if p == nil || p.Entry != tc.entry || p.Rule != tc.rule {
			t.Errorf("focus on entry %d: selected %+v, want its %s", tc.entry, p, tc.rule)
		}
		open := 0
		for _, g := range v.groups {
			if v.expanded[g.key] {
				open++
			}
		}
		if open != 1 {
			t.Errorf("focus on entry %d: %d groups expanded, want only its own", tc.entry, open)
		}
		if c := v.list.Cursor(); c < v.list.Offset() || c >= v.list.Offset()+v.listHeight() {
			t.Errorf("focus on entry %d: row %d is not in view (from %d, %d rows)", tc.entry, c, v.list.Offset(), v.listHeight())
		}
	}
}
