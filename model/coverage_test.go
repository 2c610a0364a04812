package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// cvT is hour h of a fixed day; cvOpen marks an open period.
func cvT(h int) time.Time {
	return time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour)
}

const cvOpen = -1

// cvP is a period from hour f until hour u (cvOpen: open).
func cvP(name string, f, u int) Period {
	p := Period{URL: name, From: cvT(f), Entry: -1}
	if u != cvOpen {
		p.Until = cvT(u)
	}
	return p
}

func cvHour(t time.Time) string {
	if t.IsZero() {
		return "…"
	}
	return fmt.Sprint(int(t.Sub(cvT(0)).Hours()))
}

// cvSegments writes segments as "0-4:a 4-6:a+b 6-8:- 8-…:c".
func cvSegments(periods []Period, segs []Segment) string {
	var parts []string
	for _, s := range segs {
		names := "-"
		if len(s.Covers) > 0 {
			var n []string
			for _, i := range s.Covers {
				n = append(n, periods[i].URL)
			}
			names = strings.Join(n, "+")
		}
		parts = append(parts, cvHour(s.From)+"-"+cvHour(s.Until)+":"+names)
	}
	return strings.Join(parts, " ")
}

func TestCoverage(t *testing.T) {
	tests := []struct {
		name    string
		periods []Period
		want    string
	}{
		{"nothing", nil, ""},
		{"one closed list", []Period{cvP("a", 0, 4)}, "0-4:a"},
		{"one open list", []Period{cvP("a", 0, cvOpen)}, "0-…:a"},
		{"contiguous lists", []Period{cvP("a", 0, 4), cvP("b", 4, 8), cvP("c", 8, cvOpen)}, "0-4:a 4-8:b 8-…:c"},
		{"given out of order", []Period{cvP("c", 8, cvOpen), cvP("a", 0, 4), cvP("b", 4, 8)}, "0-4:a 4-8:b 8-…:c"},
		{"a hole", []Period{cvP("a", 0, 4), cvP("b", 6, 8)}, "0-4:a 4-6:- 6-8:b"},
		{"an overlap", []Period{cvP("a", 0, 5), cvP("b", 4, 8)}, "0-4:a 4-5:a+b 5-8:b"},
		{"one inside another", []Period{cvP("a", 0, 10), cvP("b", 2, 4)}, "0-2:a 2-4:a+b 4-10:a"},
		{"the same interval twice", []Period{cvP("a", 0, 4), cvP("b", 0, 4)}, "0-4:a+b"},
		{"an open list over closed ones", []Period{cvP("a", 0, 4), cvP("b", 2, cvOpen), cvP("c", 4, 6)}, "0-2:a 2-4:a+b 4-6:b+c 6-…:b"},
		{"a hole before an open list", []Period{cvP("a", 0, 4), cvP("b", 7, cvOpen)}, "0-4:a 4-7:- 7-…:b"},
		{"periods that cover nothing", []Period{{URL: "nofrom", Until: cvT(3)}, cvP("backwards", 5, 2), cvP("empty", 3, 3), cvP("a", 1, 2)}, "1-2:a"},
		{"archive and live index", []Period{
			{URL: "arch1", From: cvT(0), Until: cvT(4), Archived: true, Entry: 0},
			{URL: "arch2", From: cvT(4), Until: cvT(8), Archived: true, Entry: 1},
			{URL: "live1", From: cvT(8), Until: cvT(12), Entry: 0},
			{URL: "live2", From: cvT(12), Entry: 1},
		}, "0-4:arch1 4-8:arch2 8-12:live1 12-…:live2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cvSegments(tt.periods, Coverage(tt.periods))
			if got != tt.want {
				t.Errorf("Coverage = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHolesAndOverlaps(t *testing.T) {
	ps := []Period{cvP("a", 0, 4), cvP("b", 3, 6), cvP("c", 8, 10), cvP("d", 9, 12), cvP("e", 14, cvOpen)}
	if got := cvSegments(ps, Holes(ps)); got != "6-8:- 12-14:-" {
		t.Errorf("Holes = %q", got)
	}
	if got := cvSegments(ps, Overlaps(ps)); got != "3-4:a+b 9-10:c+d" {
		t.Errorf("Overlaps = %q", got)
	}
	for _, s := range Coverage(ps) {
		if s.Hole() == (len(s.Covers) > 0) || s.Overlap() != (len(s.Covers) > 1) {
			t.Errorf("segment %+v: Hole %v Overlap %v", s, s.Hole(), s.Overlap())
		}
	}
}

// cvPlan writes a plan as "arch1 arch2 live1 | until 12" or "… | gap 4-6".
func cvPlan(c CatchUp) string {
	var names []string
	for _, p := range c.Lists {
		n := p.URL
		if p.Archived {
			n += "(a)"
		}
		names = append(names, n)
	}
	out := strings.Join(names, " ") + " | until " + cvHour(c.Until)
	if c.Gap != nil {
		out += " gap " + cvHour(c.Gap.From) + "-" + cvHour(c.Gap.Until)
	}
	return out
}

func TestPlanCatchUp(t *testing.T) {
	archive := []Period{cvP("x1", 0, 4), cvP("x2", 4, 8), cvP("x3", 8, 12)}
	live := []Period{cvP("l1", 12, 16), cvP("l2", 16, cvOpen)}
	tests := []struct {
		name           string
		since          int
		archived, live []Period
		want           string
	}{
		{"the live index reaches back", 13, archive, live, "l1 l2 | until …"},
		{"the point is the live index's start", 12, archive, live, "l1 l2 | until …"},
		{"the point is in the open list", 17, archive, live, "l2 | until …"},
		{"one archived list, then the index", 9, archive, live, "x3(a) l1 l2 | until …"},
		{"the point is an archived list's start", 4, archive, live, "x2(a) x3(a) l1 l2 | until …"},
		{"the point is an archived list's end", 8, archive, live, "x3(a) l1 l2 | until …"},
		{"the whole archive", 1, archive, live, "x1(a) x2(a) x3(a) l1 l2 | until …"},
		{"before anything was published", -2, archive, live, " | until -2 gap -2-0"},
		{"a hole in the archive", 1, []Period{cvP("x1", 0, 4), cvP("x3", 6, 12)}, live, "x1(a) | until 4 gap 4-6"},
		{"a hole between archive and index", 1, []Period{cvP("x1", 0, 4)}, live, "x1(a) | until 4 gap 4-12"},
		{"no archive, the index does not reach back", 5, nil, live, " | until 5 gap 5-12"},
		{"nothing at all", 5, nil, nil, " | until 5 gap 5-…"},
		{"fewest lists: a long archived list wins", 1, []Period{cvP("short", 0, 2), cvP("long", 0, 12), cvP("mid", 2, 6)}, live, "long(a) l1 l2 | until …"},
		{"overlapping lists chain", 1, []Period{cvP("x1", 0, 5), cvP("x2", 3, 9), cvP("x3", 7, 13)}, live, "x1(a) x2(a) x3(a) l1 l2 | until …"},
		{"equal reach: the later start", 5, []Period{cvP("wide", 0, 12), cvP("narrow", 4, 12)}, live, "narrow(a) l1 l2 | until …"},
		{"equal reach and start: the live one", 12, []Period{cvP("copy", 12, 16)}, live, "l1 l2 | until …"},
		{"all closed: covered to the last until", 9, archive, []Period{cvP("l1", 12, 16)}, "x3(a) l1 | until 16"},
		{"the copy is past every list", 20, archive, []Period{cvP("l1", 12, 16)}, " | until 20"},
		{"an open list in the archive", 1, []Period{cvP("x1", 0, 4), cvP("xo", 4, cvOpen)}, nil, "x1(a) xo(a) | until …"},
		{"invalid periods are ignored", 1, []Period{cvP("x1", 0, 4), cvP("bad", 12, 2), {URL: "nofrom", Until: cvT(30)}}, live, "x1(a) | until 4 gap 4-12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlanCatchUp(cvT(tt.since), tt.archived, tt.live)
			if s := cvPlan(got); s != tt.want {
				t.Errorf("PlanCatchUp = %q, want %q", s, tt.want)
			}
			// The plan's lists chain: each begins at or before the end of the one before.
			at := cvT(tt.since)
			for _, p := range got.Lists {
				if p.From.After(at) || (!p.Open() && !p.Until.After(at)) {
					t.Errorf("list %s [%s, %s) does not carry on from %s", p.URL, cvHour(p.From), cvHour(p.Until), cvHour(at))
				}
				at = p.Until
			}
			for _, p := range got.Archived() {
				if !p.Archived || !slices.ContainsFunc(tt.archived, func(q Period) bool { return q.URL == p.URL }) {
					t.Errorf("Archived() holds %s", p.URL)
				}
			}
		})
	}
	// The input is not changed.
	a := []Period{cvP("x1", 0, 4)}
	PlanCatchUp(cvT(1), nil, a)
	if a[0].Archived {
		t.Error("PlanCatchUp changed its input")
	}
}

func TestPeriodOf(t *testing.T) {
	from, _ := ParseDatetime("2024-07-01T00:00:00Z")
	until, _ := ParseDatetime("2024-07-02T00:00:00Z")
	e := Entry{Index: 3, Loc: "http://example.net/cl.xml", MD: Metadata{From: from, Until: until}}
	p, ok := PeriodOf(&e, true)
	if !ok || p.URL != e.Loc || !p.From.Equal(from.Time) || !p.Until.Equal(until.Time) || !p.Archived || p.Entry != 3 || p.Open() {
		t.Errorf("PeriodOf = %+v, %v", p, ok)
	}
	e.MD.Until = Datetime{}
	if p, ok := PeriodOf(&e, false); !ok || !p.Open() || p.Archived {
		t.Errorf("open: %+v, %v", p, ok)
	}
	e.MD.From = Datetime{Raw: "yesterday"}
	if _, ok := PeriodOf(&e, false); ok {
		t.Error("an entry without a valid from has a period")
	}
}

// FuzzCoverage builds periods from bytes (from, length, open) and checks what
// Coverage and PlanCatchUp promise: segments in order, joined, each covered
// by exactly the periods that cover it; a plan whose lists chain from the
// point, and a gap only where no period reaches.
func FuzzCoverage(f *testing.F) {
	f.Add([]byte{0, 4, 4, 4, 8, 0}, byte(2))
	f.Add([]byte{0, 5, 4, 4, 20, 2, 9, 0, 0}, byte(0))
	f.Fuzz(func(t *testing.T, data []byte, since byte) {
		var ps []Period
		for i := 0; i+2 < len(data) && len(ps) < 40; i += 3 {
			p := Period{URL: fmt.Sprint(i / 3), From: cvT(int(data[i] % 32)), Archived: data[i+2]%2 == 1}
			if data[i+2]%5 != 0 {
				p.Until = cvT(int(data[i]%32) + int(data[i+1]%16) - 2) // may be before from: covers nothing
			}
			ps = append(ps, p)
		}
		covers := func(p Period, from, until time.Time) bool {
			return p.valid() && !p.From.After(from) && (p.Open() || (!until.IsZero() && !p.Until.Before(until)))
		}
		segs := Coverage(ps)
		for k, s := range segs {
			if !s.Until.IsZero() && !s.Until.After(s.From) {
				t.Fatalf("segment %d is empty or backwards: %+v", k, s)
			}
			if k > 0 && !segs[k-1].Until.Equal(s.From) {
				t.Fatalf("segments %d and %d do not join", k-1, k)
			}
			if s.Until.IsZero() && k != len(segs)-1 {
				t.Fatalf("an open segment before the last")
			}
			var want []int
			for i, p := range ps {
				if covers(p, s.From, s.Until) {
					want = append(want, i)
				}
			}
			if !slices.Equal(want, s.Covers) {
				t.Fatalf("segment %d [%s, %s) covered by %v, want %v", k, cvHour(s.From), cvHour(s.Until), s.Covers, want)
			}
		}
		var archived, live []Period
		for _, p := range ps {
			if p.Archived {
				archived = append(archived, p)
			} else {
				live = append(live, p)
			}
		}
		at := cvT(int(since%40) - 4)
		plan := PlanCatchUp(at, archived, live)
		for _, p := range plan.Lists {
			if p.From.After(at) || (!p.Open() && !p.Until.After(at)) {
				t.Fatalf("list %s does not carry on from %s", p.URL, cvHour(at))
			}
			at = p.Until
		}
		if len(plan.Lists) > 0 && !plan.Lists[len(plan.Lists)-1].Open() && !plan.Until.Equal(at) {
			t.Fatalf("plan until %s, lists end at %s", cvHour(plan.Until), cvHour(at))
		}
		if g := plan.Gap; g != nil {
			for _, p := range ps {
				if p.valid() && !p.From.After(g.From) && (p.Open() || p.Until.After(g.From)) {
					t.Fatalf("gap at %s, but %s reaches it", cvHour(g.From), p.URL)
				}
			}
		}
	})
}
