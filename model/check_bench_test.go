package model

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkCheckValidate50k: decoding plus checking the 50,000-entry Resource List
// in-process; BenchmarkCheckDecodeOnly is the decoder alone, for comparison.
func BenchmarkCheckValidate50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rep := Validate(bytes.NewReader(data), CheckOptions{})
		if rep.Errors != 0 || rep.Warnings != 0 || rep.Entries != 50000 {
			b.Fatalf("unexpected report: %d entries, %d errors, %d warnings: %v", rep.Entries, rep.Errors, rep.Warnings, rep.Problems)
		}
	}
}

func BenchmarkCheckDecodeOnly50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d := NewDecoder(bytes.NewReader(data), DecoderOptions{})
		if _, err := d.Header(); err != nil {
			b.Fatal(err)
		}
		var e Entry
		for {
			if err := d.Next(&e); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCheckEntries50k is the checker alone over decoded entries.
func BenchmarkCheckEntries50k(b *testing.B) {
	doc, err := Parse(bytes.NewReader(benchResourceList(b, 50000)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := NewChecker(CheckOptions{})
		c.Begin(&doc.Header)
		for j := range doc.Entries {
			c.Entry(&doc.Entries[j])
		}
		c.End(&doc.Header, doc.Bytes)
		if n, w := c.Counts(); n+w != 0 {
			b.Fatal(c.Problems())
		}
	}
}

// BenchmarkChkURI: the URI check every loc goes through.
func BenchmarkChkURI(b *testing.B) {
	locs := []string{"http://example.com/resources/2024/11/25/item-000123.xml", "https://data.example.org/a/b/c?x=1", "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"}
	n := 0
	for i := 0; i < b.N; i++ {
		if chkURI(locs[i%len(locs)]) == uriOK {
			n++
		}
	}
	if n != b.N {
		b.Fatal("a good URI refused")
	}
}
