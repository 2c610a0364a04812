package model

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// checkTableRoundTrip appends every entry and checks that the table gives them
// back unchanged, through Entry and through the column accessors.
func checkTableRoundTrip(t *testing.T, name string, entries []Entry) *EntryTable {
	t.Helper()
	tab := NewEntryTable()
	for i := range entries {
		if k := tab.Append(&entries[i]); k != i {
			t.Fatalf("%s: Append returned %d, want %d", name, k, i)
		}
	}
	if tab.Len() != len(entries) {
		t.Fatalf("%s: Len %d, want %d", name, tab.Len(), len(entries))
	}
	for i, want := range entries {
		got := tab.Entry(i)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: entry %d differs:\n got %+v\nwant %+v", name, i, got, want)
		}
		n, ok := tab.Length(i)
		switch {
		case tab.Loc(i) != want.Loc,
			!reflect.DeepEqual(tab.Lastmod(i), want.Lastmod),
			!reflect.DeepEqual(tab.Datetime(i), want.MD.Datetime),
			!reflect.DeepEqual(tab.At(i), want.MD.At),
			!reflect.DeepEqual(tab.From(i), want.MD.From),
			!reflect.DeepEqual(tab.Until(i), want.MD.Until),
			n != want.MD.Length || ok != want.MD.LengthOK,
			tab.Type(i) != want.MD.Type,
			tab.Change(i) != want.MD.Change,
			tab.Capability(i) != want.MD.Capability,
			tab.HashRaw(i) != want.MD.HashRaw,
			!reflect.DeepEqual(tab.Hash(i), want.MD.Hash),
			tab.Path(i) != want.MD.Path,
			tab.LinkCount(i) != len(want.Links):
			t.Fatalf("%s: accessors of entry %d differ from %+v", name, i, want)
		}
	}
	return tab
}

func TestEntryTableConformanceRoundTrip(t *testing.T) {
	for _, f := range decThirdPartyFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkTableRoundTrip(t, filepath.Base(f), doc.Entries)
	}
}

func TestEntryTableRoundTrip(t *testing.T) {
	doc := decMustParse(t, `<urlset `+decSM+` `+decRS+` xmlns:x="urn:x">
<url><loc> http://e.com/a </loc><lastmod>2013-01-02T13:00:00+02:00</lastmod><changefreq>daily</changefreq>
<rs:md hash="MD5:1584abdf8ebdc9802ac0c6a7402c03b6" length="007" type="text/html" change="updated" datetime="2013-01-02T13:00:00.123456789Z" x:a="1"/>
<rs:ln rel="duplicate" href="http://m.com/a" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/><x:extra>t</x:extra></url>
<url><loc>http://e.com/b</loc><lastmod>2013-01-02T13:00Z</lastmod><rs:md hash="md5:1584ABDF8EBDC9802AC0C6A7402C03B6" length="9788456778" encoding="gzip" path="/p/b" capability="resourcelist" at="2013" completed="2013-01" from="2013-01-02" until="2013-01-02T13:00:00.5Z"/></url>
<url><loc>http://e.com/c</loc><lastmod>not a date</lastmod><rs:md hash="md5:Yx8m6CqWBJjKT5VBggoWeQ== sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784" length="x" change="moved"/></url>
<url><loc>a</loc><loc>b</loc><rs:md/><rs:md/></url>
<url><lastmod>0001-01-01</lastmod><rs:md hash="" path=""/></url>
<url><loc>http://e.com/d</loc><lastmod>2013-01-02T13:00:00.1234567891Z</lastmod><rs:md hash="sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709  md5:1584abdf8ebdc9802ac0c6a7402c03b6"/></url>
<url><loc>http://e.com/e</loc><lastmod>2016-12-31T23:59:60Z</lastmod><rs:md hash="foo:abcd"/></url>
<url><loc>http://e.com/f</loc><lastmod></lastmod><changefreq> </changefreq><rs:md length="" at="" type=""/></url>
</urlset>`)
	entries := append([]Entry(nil), doc.Entries...)
	// Values no decoder produces but a caller might append.
	entries = append(entries,
		Entry{Index: 1 << 40, Line: 1 << 40, MD: Metadata{Line: 3}},
		Entry{Index: 7, Line: 10, MD: Metadata{Present: true, Line: 2000}, LocCount: 5},
		Entry{Lastmod: Datetime{Raw: "2013", Time: time.Date(2013, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)), Precision: PrecisionYear, OK: true}},
	)
	tab := checkTableRoundTrip(t, "odd entries", entries)
	if tab.Type(0) != "text/html" || tab.Change(0) != ChangeUpdated || tab.LinkCount(0) != 1 || tab.Capability(1) != CapResourceList {
		t.Errorf("accessors: %q %q %d %q", tab.Type(0), tab.Change(0), tab.LinkCount(0), tab.Capability(1))
	}
	if n, ok := tab.Length(1); n != 9788456778 || !ok {
		t.Errorf("length %d %v", n, ok)
	}
	if tab.At(1).Precision != PrecisionYear || tab.Until(1).Fraction != "5" || tab.Path(1) != "/p/b" {
		t.Errorf("at %+v until %+v path %q", tab.At(1), tab.Until(1), tab.Path(1))
	}
	if len(tab.Links(0)) != 1 || tab.Links(1) != nil {
		t.Errorf("links %+v", tab.Links(0))
	}
}

// TestEntryTableEntriesIndependent checks that entries given by the table do not
// share memory with what was appended, nor with each other.
func TestEntryTableEntriesIndependent(t *testing.T) {
	doc := decMustParse(t, `<urlset `+decSM+` `+decRS+`><url><loc>a</loc><rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/><rs:ln rel="x" href="y" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/></url></urlset>`)
	tab := NewEntryTable()
	tab.Append(&doc.Entries[0])
	doc.Entries[0].Links[0].Hash[0].Digest[0] ^= 0xff
	e := tab.Entry(0)
	e.MD.Hash[0].Digest[0] ^= 0xff
	e.Links[0].Href = "changed"
	again := tab.Entry(0)
	if again.MD.Hash[0].Digest[0] != 0x15 || again.Links[0].Hash[0].Digest[0] != 0x15 || again.Links[0].Href != "y" {
		t.Errorf("table entry changed: %+v", again)
	}
}

func TestEntryTableBenchList(t *testing.T) {
	data := benchResourceList(t, 50000)
	doc, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tab := checkTableRoundTrip(t, "bench list", doc.Entries)
	perEntry := float64(tab.Bytes()) / float64(tab.Len())
	t.Logf("50k-entry Resource List: %.1f bytes/entry in an EntryTable (%d rare)", perEntry, tab.nRare)
	if perEntry > 200 {
		t.Errorf("%.1f bytes/entry, want under 200", perEntry)
	}
	if tab.nRare != 0 {
		t.Errorf("%d entries needed the side map", tab.nRare)
	}
}

// BenchmarkEntryTableAppend1M streams a generated 1,000,000-entry Resource List
// through the decoder into an EntryTable and reports the table's size per entry
// (as measured by Bytes and by the Go heap).
func BenchmarkEntryTableAppend1M(b *testing.B) {
	const n = 1000000
	for i := 0; i < b.N; i++ {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeBenchResourceList(pw, n)) }()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		tab := NewEntryTable()
		d := NewDecoder(pr, DecoderOptions{MaxBytes: 1 << 32})
		var e Entry
		for {
			err := d.Next(&e)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			tab.Append(&e)
		}
		e = Entry{}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if tab.Len() != n {
			b.Fatalf("%d entries", tab.Len())
		}
		b.ReportMetric(float64(tab.Bytes())/n, "table-bytes/entry")
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap-bytes/entry")
		runtime.KeepAlive(tab)
	}
}

func BenchmarkEntryTableEntry(b *testing.B) {
	doc, err := Parse(bytes.NewReader(benchResourceList(b, 10000)))
	if err != nil {
		b.Fatal(err)
	}
	tab := NewEntryTable()
	for i := range doc.Entries {
		tab.Append(&doc.Entries[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = tab.Entry(i % tab.Len())
	}
}
