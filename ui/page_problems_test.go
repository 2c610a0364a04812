package ui

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"rsx/model"
)

func ivProblems() (doc, cross []model.Problem) {
	doc = []model.Problem{
		{Severity: model.SeverityWarning, Rule: "lastmod-future", Section: "7", Message: "entry 7: lastmod 2099-01-01 is in the future", Entry: 6, Line: 40},
		{Severity: model.SeverityError, Rule: "loc-absolute", Section: "7", Message: `entry 3: <loc> "res3" is not an absolute URI`, Entry: 2, Line: 18},
		{Severity: model.SeverityError, Rule: "md-at-missing", Section: "12.1", Message: "the document's <rs:md> has no at attribute, which a Resource List must have", Entry: -1, Line: 6},
		{Severity: model.SeverityWarning, Rule: "describedby-recommended", Section: "10", Message: "no <rs:ln rel=\"describedby\"> at document level", Entry: -1},
		{Severity: model.SeverityError, Rule: "hash-length", Section: "7", Message: "entry 1: md5 digest has 30 hex digits, expected 32 — this message is long enough that it has to be wrapped onto a second line of the detail pane, and then cut", Entry: 0, Line: 9},
	}
	cross = []model.Problem{
		{Severity: model.SeverityWarning, Rule: "up-link-mismatch", Section: "12", Message: "up link points to http://example.com/other-capabilitylist.xml, which does not list this document", Entry: -1, Line: 5},
	}
	return doc, cross
}

func TestProblemsViewGolden(t *testing.T) {
	doc, cross := ivProblems()
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			tm, rec := ivRun(t, newProblemsPage(ivTestCommon(), doc, cross), w, h)
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "up-link-mismatch") })
			ivGolden(t, fmt.Sprintf("view_problems_%dx%d", w, h), rec.Screen())

			tm.Type("jj")
			tm.Send(ivKey("enter")) // entry 3
			tm.Type("k")
			tm.Send(ivKey("enter")) // entry 1
			tm.Type("k")
			tm.Send(ivKey("enter")) // document level: line 6 in the raw view
			tm.Type("w")
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "warnings (hidden)") })
			ivGolden(t, fmt.Sprintf("view_problems_errors_%dx%d", w, h), rec.Screen())
			// Commands run concurrently: compare the messages as a set.
			var got []string
			for _, m := range ivWaitMsgs(t, rec, 3) {
				got = append(got, fmt.Sprintf("%T%v", m, m))
			}
			sort.Strings(got)
			want := "[ui.jumpToEntryMsg{0} ui.jumpToEntryMsg{2} ui.showRawLineMsg{6}]"
			if fmt.Sprint(got) != want {
				t.Errorf("messages = %v, want %v", got, want)
			}
		})
	}
}

func TestProblemsViewOrder(t *testing.T) {
	doc, cross := ivProblems()
	v := newProblemsPage(ivTestCommon(), doc, cross)
	v.SetSize(100, 30)
	var got []string
	for _, r := range v.rows {
		if r.p == nil {
			got = append(got, "# "+strings.Fields(r.heading)[0])
			continue
		}
		got = append(got, fmt.Sprintf("%s %d %s", r.p.Severity, r.p.Entry, r.p.Rule))
	}
	want := []string{
		"# This",
		"error -1 md-at-missing",
		"error 0 hash-length",
		"error 2 loc-absolute",
		"warning -1 describedby-recommended",
		"warning 6 lastmod-future",
		"# Across",
		"warning -1 up-link-mismatch",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := v.Selected(); p == nil || p.Rule != "md-at-missing" {
		t.Errorf("first selection: %v", p)
	}
}

func TestProblemsViewFilters(t *testing.T) {
	doc, cross := ivProblems()
	v := newProblemsPage(ivTestCommon(), doc, cross)
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
		{"e", 0, 3, "up-link-mismatch"},
		{"w", 0, 0, ""},
		{"e", 3, 0, "md-at-missing"},
		{"w", 3, 3, "md-at-missing"},
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
		{model.Problem{Entry: 4, Line: 30}, "enter", jumpToEntryMsg{Index: 4}},
		{model.Problem{Entry: 4, Line: 30}, "L", showRawLineMsg{Line: 30}},
		{model.Problem{Entry: -1, Line: 3}, "enter", showRawLineMsg{Line: 3}},
		{model.Problem{Entry: 4}, "L", flashMsg{Text: "this problem has no line number: enter shows its entry"}},
		{model.Problem{Entry: -1}, "enter", flashMsg{Text: "this problem concerns the whole document: it has no entry or line"}},
	}
	for _, tt := range tests {
		tt.p.Severity, tt.p.Rule = model.SeverityError, "x"
		v := newProblemsPage(ivTestCommon(), []model.Problem{tt.p}, nil)
		v.SetSize(80, 10)
		msgs := ivDrive(v, ivKey(tt.key))
		if len(msgs) != 1 || msgs[0] != tt.want {
			t.Errorf("%+v %s: %v, want %v", tt.p, tt.key, msgs, tt.want)
		}
	}
}

func TestProblemsViewEmptyAndLarge(t *testing.T) {
	v := newProblemsPage(ivTestCommon(), nil, nil)
	v.SetSize(80, 10)
	if !strings.Contains(v.View(), "no problems found") {
		t.Errorf("empty:\n%s", v.View())
	}
	many := make([]model.Problem, 100000)
	for i := range many {
		many[i] = model.Problem{Severity: model.Severity(1 + i%2), Rule: "r", Section: "7", Message: "m", Entry: i}
	}
	v.SetProblems(many, nil)
	v.Update(ivKey("G"))
	if p := v.Selected(); p == nil || p.Entry != 99999 {
		t.Errorf("G selected %+v", p)
	}
	if n := len(strings.Split(v.View(), "\n")); n != 10 {
		t.Errorf("%d lines drawn, want 10", n)
	}
}
