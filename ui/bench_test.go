package ui

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/dest/plan"
	"rsx/model"
)

// exBigDocument is a loaded Resource List of n entries.
func exBigDocument(tb testing.TB, n int) *document {
	tb.Helper()
	d := newDocument(exHost+"/big.xml", 1)
	h := &model.Header{Root: model.RootURLSet, RootLocal: "urlset"}
	h.MD.Present, h.MD.Capability = true, model.CapResourceList
	h.MD.At, _ = model.ParseDatetime("2026-01-05T09:00:00Z")
	d.header = h
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	types := []string{"text/html", "application/pdf", "image/png", "text/plain"}
	var e model.Entry
	for i := range n {
		e = model.Entry{Index: i, HasLoc: true, LocCount: 1, MDCount: 1, Line: 3 + i, Loc: fmt.Sprintf("%s/res/%07d.%d", exHost, (i*7919)%n, i%4)}
		e.Lastmod, _ = model.ParseDatetime(base.Add(time.Duration((i*104729)%n) * time.Minute).Format(time.RFC3339))
		e.MD.Present = true
		e.MD.Length, e.MD.LengthRaw, e.MD.LengthOK = int64(1000+i%5000), fmt.Sprint(1000+i%5000), true
		e.MD.Type = types[i%4]
		e.MD.HashRaw = fmt.Sprintf("md5:%032x", i)
		e.MD.Hash, _ = model.ParseHashList(e.MD.HashRaw)
		d.entries.Append(&e)
	}
	return d
}

// exBigApp is the explorer showing a loaded document of n entries.
func exBigApp(tb testing.TB, n int) *App {
	a := New(Options{Backend: NopBackend{}, Now: func() time.Time { return exTime }, Dark: true})
	a.noTick = true
	a.resize(120, 40)
	d := exBigDocument(tb, n)
	a.cache.put(docKey(d.url, false), d)
	a.show(d, -1)
	return a
}

// BenchmarkViewDocument1M renders the whole screen with a million entries
// loaded, the cursor in the middle of the document (goal: under 2 ms).
func BenchmarkViewDocument1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	a.dv.tbl.MoveTo(500_000)
	runtime.GC() // not the building's garbage: the frame's
	b.ReportAllocs()
	b.ResetTimer()
	cpu := exCPUTime()
	for b.Loop() {
		_ = a.View()
	}
	b.ReportMetric(float64((exCPUTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkViewDocumentFiltered1M renders with a filter and a sort active.
func BenchmarkViewDocumentFiltered1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	a.dv.order = sortPerm(a.doc, a.doc.entries.Len(), colLastmod, true, true)
	a.dv.sortCol = 1
	q := parseFilter("html", a.dv.kinds)
	a.dv.query = q
	a.dv.filtered = filterRows(context.Background(), newMatcher(a.doc, q, a.dv.kinds, keysBuild), a.doc.entries.Len(), a.dv.order)
	a.dv.applyPerm()
	a.dv.tbl.MoveTo(100_000)
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = a.View()
	}
}

// BenchmarkFilter1M is one filter keystroke over a million entries: the
// key press (Update, on the UI goroutine) and the scan it starts (a Cmd),
// until the result is applied (goal: under 50 ms, typing never stalls).
func BenchmarkFilter1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	queries := []string{"res/00042", "pdf", "2021-03", "type:image"}
	for _, q := range queries {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			cpu := exCPUTime()
			for b.Loop() {
				a.dv.query = filterQuery{}
				a.dv.filtered = nil
				cmd := a.dv.startFilter(q)
				if cmd != nil {
					a.dv.Update(cmd())
				}
			}
			b.ReportMetric(float64(len(a.dv.filtered)), "matches")
			b.ReportMetric(float64((exCPUTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkFilterKeystroke1M is the part of a keystroke that runs on the
// UI goroutine: it must return at once, the scan runs in a Cmd.
func BenchmarkFilterKeystroke1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	a.dv.filtering = true
	a.dv.filterInput.Start("")
	key := tea.KeyPressMsg{Code: 'x', Text: "x"}
	bs := tea.KeyPressMsg{Code: tea.KeyBackspace}
	b.ReportAllocs()
	for b.Loop() {
		a.dv.Update(key)
		a.dv.Update(bs)
	}
}

// BenchmarkSort1M sorts a million entries by each kind of column (an index
// permutation; the entries do not move): "radix" is the explorer's sort,
// "comparison" the comparison sort it replaced (exSortPermCompare), run
// beside it so that both are measured under the same load. The sort keys
// of the loc, datetime and enum columns are built before the timer starts,
// as the explorer builds them in the background once a document has loaded;
// "radix-unbuilt" reads them from the table as it sorts (a document still
// loading, or a column whose keys are not built yet).
func BenchmarkSort1M(b *testing.B) {
	d := exBigDocument(b, 1_000_000)
	d.textKeys(colLoc)
	d.timeKeys(colLastmod)
	d.enum(colType)
	for _, k := range []colKind{colLoc, colLastmod, colLength, colType} {
		sorts := []struct {
			name string
			sort func() []int32
		}{
			{"radix", func() []int32 { return sortPerm(d, d.entries.Len(), k, false, true) }},
			{"radix-unbuilt", func() []int32 { return sortPerm(d, d.entries.Len(), k, false, false) }},
			{"comparison", func() []int32 { return exSortPermCompare(d, d.entries.Len(), k, false) }},
		}
		for _, s := range sorts {
			b.Run(k.name()+"/"+s.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := exCPUTime()
				for b.Loop() {
					_ = s.sort()
				}
				b.ReportMetric(float64((exCPUTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkAppendBatch is the UI goroutine's share of streaming: appending
// a batch of 2048 decoded entries and updating the view.
func BenchmarkAppendBatch(b *testing.B) {
	a := exBigApp(b, 0)
	src := exBigDocument(b, 2048)
	batch := make([]model.Entry, 2048)
	for i := range batch {
		batch[i] = src.entries.Entry(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d := newDocument(exHost+"/s.xml", 2)
		d.header = src.header
		d.loading = true
		a.show(d, -1)
		b.StartTimer()
		a.handleLoad(loadMsg{doc: d, gen: 2, part: -1, batch: batch, progress: -1})
	}
}

// exCPUTime is the CPU time the process has used (user and system): on a
// loaded machine it says more about the cost of a step than wall time.
func exCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamingKeystroke500k is a filter keystroke and a sort key over
// a document of 500,000 entries still loading. "ui" is what runs on the UI
// goroutine (the key press: it starts a Cmd); "cmd" is the scan or the sort
// that the Cmd runs over a snapshot of the rows, which is what the UI
// goroutine itself ran before (over the rows, with no snapshot).
func BenchmarkStreamingKeystroke500k(b *testing.B) {
	src := exBigDocument(b, 500_000)
	a, _ := exStreamingApp(b, src, 500_000)
	v := a.dv
	lastmod := slices.Index(v.kinds, colLastmod)
	steps := []struct {
		name string
		key  func() tea.Cmd
	}{
		{"filter", func() tea.Cmd { v.query, v.filtered = filterQuery{}, nil; return v.startFilter("pdf") }},
		{"sort", func() tea.Cmd { v.sortCol = lastmod; return v.startSort() }},
	}
	for _, s := range steps {
		b.Run(s.name+"/ui", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if cmd := s.key(); cmd == nil {
					b.Fatal("no Cmd: the work ran on the UI goroutine")
				}
			}
		})
		b.Run(s.name+"/cmd", func(b *testing.B) {
			cmd := s.key()
			b.ReportAllocs()
			cpu := exCPUTime()
			for b.Loop() {
				_ = cmd()
			}
			b.ReportMetric(float64((exCPUTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkMarkShown1M marks every entry shown of a million (+), then
// clears them (-): the keys that touch every entry (goal: a few ms each).
func BenchmarkMarkShown1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	all, clear := exKey("+"), exKey("-")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a.dv.markKey(all)
		a.dv.markKey(clear)
	}
	if a.doc.marked() != 0 {
		b.Fatal("marks left")
	}
}

// BenchmarkMarkInvertFiltered1M inverts the marks of the entries a filter
// keeps (a quarter of a million entries).
func BenchmarkMarkInvertFiltered1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	q := parseFilter("html", a.dv.kinds)
	a.dv.query = q
	a.dv.filtered = filterRows(context.Background(), newMatcher(a.doc, q, a.dv.kinds, keysBuild), a.doc.entries.Len(), nil)
	a.dv.applyPerm()
	inv := exKey("*")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a.dv.markKey(inv)
	}
}

// BenchmarkMarkOne1M is space on a document of a million entries.
func BenchmarkMarkOne1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	a.dv.tbl.MoveTo(500_000)
	space, up := exKey("space"), exKey("up")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a.dv.markKey(space)
		a.dv.Update(up)
	}
}

// BenchmarkViewMarked1M renders the screen with half a million entries
// marked (the mark column, the count in the status bar).
func BenchmarkViewMarked1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	a.dv.markKey(exKey("+"))
	for i := 0; i < 1_000_000; i += 2 {
		a.doc.picked.set(a.doc, i, false)
	}
	a.dv.tbl.MoveTo(500_000)
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = a.View()
	}
}

// BenchmarkSyncScope1M is what :sync costs the UI goroutine with a million
// entries marked: their URIs (the set the plan is limited to is made in the
// plan's command: BenchmarkURISet1M).
func BenchmarkSyncScope1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	a.dv.markKey(exKey("+"))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sc, err := a.scope(false)
		if err != nil || len(sc.only) != 1_000_000 {
			b.Fatal(err, len(sc.only))
		}
	}
}

// BenchmarkURISet1M makes the set of a million marked entries' URIs.
func BenchmarkURISet1M(b *testing.B) {
	a := exBigApp(b, 1_000_000)
	a.dv.markKey(exKey("+"))
	sc, _ := a.scope(false)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if plan.NewURISet(sc.only).Len() == 0 {
			b.Fatal("empty")
		}
	}
}
