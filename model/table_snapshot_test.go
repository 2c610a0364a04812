package model

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// snapshotEntries are entries of every shape the table stores: plain ones,
// and ones with links, odd datetimes and long values in the side records,
// spread so that side records fall in some pages and not in others.
func snapshotEntries(t *testing.T, n int) []Entry {
	shapes := snapshotShapes(t)
	out := make([]Entry, n)
	for i := range out {
		e := shapes[0]
		switch {
		case i%97 == 5:
			e = shapes[1]
		case i%1000 == 999:
			e = shapes[2]
		}
		e.Index, e.Line = i, 3+i
		e.Loc = fmt.Sprintf("http://e.com/%d", i)
		out[i] = e
	}
	return out
}

// snapshotShapes are three entries: one that the columns hold, one with a
// link and a datetime with a zone offset, one with an invalid datetime.
func snapshotShapes(t *testing.T) []Entry {
	doc := decMustParse(t, `<urlset `+decSM+` `+decRS+`>
<url><loc>http://e.com/a</loc><lastmod>2013-01-02T13:00:00Z</lastmod><rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="7" type="text/html" change="updated" datetime="2013-01-02T13:00:00.123Z"/></url>
<url><loc>http://e.com/b</loc><lastmod>2013-01-02T13:00:00+02:00</lastmod><rs:md length="x" type="text/plain" from="2013-01-01" until="2013-01-02"/><rs:ln rel="duplicate" href="http://m.com/b"/></url>
<url><loc>http://e.com/c</loc><lastmod>not a date</lastmod><rs:md at="2013" completed="2013-02"/></url>
</urlset>`)
	return doc.Entries
}

// TestEntryTableSnapshot reads snapshots from other goroutines while the table
// goes on appending: each view gives back exactly the entries appended before
// it was taken (run with -race, it also shows that nothing is shared that
// Append writes).
func TestEntryTableSnapshot(t *testing.T) {
	entries := snapshotEntries(t, 20000)
	tab := NewEntryTable()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range entries {
		tab.Append(&entries[i])
		if i%2500 != 100 {
			continue
		}
		view := tab.Snapshot()
		wg.Go(func() {
			if view.Len() != i+1 {
				errs <- fmt.Sprintf("view taken after entry %d has %d entries", i, view.Len())
				return
			}
			for j := range view.Len() {
				got := view.Entry(j)
				if !reflect.DeepEqual(got, entries[j]) {
					errs <- fmt.Sprintf("view of %d entries: entry %d is %+v, want %+v", view.Len(), j, got, entries[j])
					return
				}
				if ns, ok := view.UnixNano(FieldLastmod, j); ok != entries[j].Lastmod.OK || (ok && ns != entries[j].Lastmod.Time.UnixNano()) {
					errs <- fmt.Sprintf("entry %d: UnixNano(lastmod) = %d, %v; want the instant of %q", j, ns, ok, entries[j].Lastmod.Raw)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	checkTableRoundTrip(t, "after snapshots", entries)
}

// TestEntryTableUnixNano gives the instant of each datetime field, and false
// for absent and invalid ones, as the Datetime accessors do.
func TestEntryTableUnixNano(t *testing.T) {
	entries := append(snapshotShapes(t), Entry{})
	tab := NewEntryTable()
	for i := range entries {
		tab.Append(&entries[i])
	}
	fields := []struct {
		f   DatetimeField
		get func(i int) Datetime
	}{
		{FieldLastmod, tab.Lastmod}, {FieldDatetime, tab.Datetime}, {FieldAt, tab.At},
		{FieldCompleted, tab.Completed}, {FieldFrom, tab.From}, {FieldUntil, tab.Until},
	}
	seen := 0
	for _, fd := range fields {
		for i := range tab.Len() {
			dt := fd.get(i)
			ns, ok := tab.UnixNano(fd.f, i)
			if ok != dt.OK || (ok && ns != dt.Time.UnixNano()) {
				t.Errorf("field %d entry %d: UnixNano = %d, %v; Datetime %+v", fd.f, i, ns, ok, dt)
			}
			if ok {
				seen++
			}
		}
	}
	if seen != 7 {
		t.Errorf("%d datetimes present, want the 7 the entries have", seen)
	}
	if _, ok := tab.UnixNano(DatetimeField(99), 0); ok {
		t.Error("an unknown field has a datetime")
	}
}
