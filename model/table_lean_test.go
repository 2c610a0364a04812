package model

import (
	"bytes"
	"os"
	"reflect"
	"testing"
	"time"
)

// leanOf is e as a lean table gives it back: without its links, extra
// elements and unknown md attributes.
func leanOf(e Entry) Entry {
	e.Links, e.Extra, e.MD.Extra = nil, nil, nil
	return e
}

// tableTestEntries are entries of every shape the decoder gives: the
// conformance files and the odd entries of TestEntryTableRoundTrip.
func tableTestEntries(t *testing.T) []Entry {
	t.Helper()
	var out []Entry
	for _, f := range decThirdPartyFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, doc.Entries...)
	}
	doc := decMustParse(t, `<urlset `+decSM+` `+decRS+` xmlns:x="urn:x">
<url><loc> http://e.com/a </loc><lastmod>2013-01-02T13:00:00+02:00</lastmod><changefreq>daily</changefreq>
<rs:md hash="MD5:1584abdf8ebdc9802ac0c6a7402c03b6" length="007" type="text/html" change="updated" datetime="2013-01-02T13:00:00.123456789Z" x:a="1"/>
<rs:ln rel="duplicate" href="http://m.com/a" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/><x:extra>t</x:extra></url>
<url><loc>http://e.com/b</loc><lastmod>2013-01-02T13:00Z</lastmod><rs:md hash="md5:1584ABDF8EBDC9802AC0C6A7402C03B6" length="9788456778" encoding="gzip" path="/p/b" capability="resourcelist" at="2013" completed="2013-01" from="2013-01-02" until="2013-01-02T13:00:00.5Z"/></url>
<url><loc>http://e.com/c</loc><lastmod>not a date</lastmod><rs:md hash="md5:Yx8m6CqWBJjKT5VBggoWeQ== sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784" length="x" change="moved"/>
<rs:ln rel="a" href="1"/><rs:ln rel="b" href="2"/></url>
<url><loc>a</loc><loc>b</loc><rs:md/><rs:md/></url>
</urlset>`)
	out = append(out, doc.Entries...)
	// Values no decoder produces but a caller might append.
	return append(out,
		Entry{Index: 1 << 40, Line: 1 << 40, MD: Metadata{Line: 3}},
		Entry{Index: 7, Line: 10, MD: Metadata{Present: true, Line: 2000}, LocCount: 5},
		Entry{Lastmod: Datetime{Raw: "2013", Time: time.Date(2013, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)), Precision: PrecisionYear, OK: true}},
	)
}

// A lean table gives back every entry but for its links, extra elements and
// unknown attributes, counts the links, and tells which entries lost
// something.
func TestEntryTableLean(t *testing.T) {
	entries := tableTestEntries(t)
	tab := NewLeanEntryTable()
	for i := range entries {
		tab.Append(&entries[i])
	}
	partial := 0
	for i, want := range entries {
		if got := tab.Entry(i); !reflect.DeepEqual(got, leanOf(want)) {
			t.Fatalf("entry %d differs:\n got %+v\nwant %+v", i, got, leanOf(want))
		}
		lost := want.Links != nil || want.Extra != nil || want.MD.Extra != nil
		if tab.Partial(i) != lost {
			t.Errorf("entry %d: Partial %v, want %v", i, tab.Partial(i), lost)
		}
		if lost {
			partial++
		}
		if tab.LinkCount(i) != len(want.Links) || tab.Links(i) != nil || tab.Index(i) != want.Index {
			t.Errorf("entry %d: %d links %v, index %d; want %d links, index %d", i, tab.LinkCount(i), tab.Links(i), tab.Index(i), len(want.Links), want.Index)
		}
	}
	if partial == 0 || partial == len(entries) {
		t.Fatalf("%d of %d entries partial: the test entries do not tell", partial, len(entries))
	}
}

// AppendRows joins the rows of one table to another: each gives back what
// the source gave, Index included, into full and lean tables alike.
func TestEntryTableAppendRows(t *testing.T) {
	entries := tableTestEntries(t)
	for _, c := range []struct {
		name      string
		src, dst  func() *EntryTable
		wantEntry func(Entry) Entry
	}{
		{"full into full", NewEntryTable, NewEntryTable, func(e Entry) Entry { return e }},
		{"lean into lean", NewLeanEntryTable, NewLeanEntryTable, leanOf},
		{"full into lean", NewEntryTable, NewLeanEntryTable, leanOf},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := c.src()
			for i := range entries {
				src.Append(&entries[i])
			}
			dst := c.dst()
			// Some rows of its own first, and the source's in two goes, one
			// from a snapshot.
			own := Entry{Index: 0, Loc: "http://own/", HasLoc: true, LocCount: 1, MD: Metadata{Type: "x/own"}}
			dst.Append(&own)
			half := len(entries) / 2
			dst.AppendRows(src.Snapshot(), 0, half)
			dst.AppendRows(src, half, len(entries))
			if dst.Len() != 1+len(entries) || dst.Type(0) != "x/own" {
				t.Fatalf("Len %d, type of own row %q", dst.Len(), dst.Type(0))
			}
			for k, want := range entries {
				i := 1 + k
				if got := dst.Entry(i); !reflect.DeepEqual(got, c.wantEntry(want)) {
					t.Fatalf("row %d differs:\n got %+v\nwant %+v", i, got, c.wantEntry(want))
				}
				if dst.Index(i) != want.Index || dst.LinkCount(i) != len(want.Links) || dst.Loc(i) != want.Loc {
					t.Fatalf("row %d: index %d, %d links, loc %q", i, dst.Index(i), dst.LinkCount(i), dst.Loc(i))
				}
				if ns, ok := dst.UnixNano(FieldLastmod, i); ok != want.Lastmod.OK || (ok && ns != want.Lastmod.Time.UnixNano()) {
					t.Fatalf("row %d: lastmod %d %v", i, ns, ok)
				}
			}
		})
	}
}
