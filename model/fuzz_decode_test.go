package model

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// decFuzzSeeds are small documents exercising the decoder's paths; the
// specification's examples in testdata are added too.
var decFuzzSeeds = []string{
	`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z" completed="2013-01-03T09:01:00Z"/>
  <url>
      <loc>http://example.com/res1</loc>
      <lastmod>2013-01-02T13:00:00Z</lastmod>
      <rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784" length="8876" type="text/html"/>
      <rs:ln rel="duplicate" pri="1" href="http://mirror.example.com/res1" modified="2013-01-02T13:00:00Z"/>
  </url>
</urlset>`,
	`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="changelist" from="2013-01-01T00:00:00Z"/><sitemap><loc>http://e.com/cl1.xml</loc><rs:md from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/></sitemap></sitemapindex>`,
	`<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns="http://www.openarchives.org/rs/terms/"><md capability="changedump-manifest"/><sm:url><sm:loc> a&amp;b&#x41;<![CDATA[<x>]]> </sm:loc><md change="updated" path="/p" datetime="2013-01-03T09:00:00.5+01:00"/></sm:url></sm:urlset>`,
	`<urlset xmlns:rs="http://www.openarchives.org/rs/"><rs:md capability="resourcelist" modified="2012"/><url><loc>a</loc><rs:fixity type="md5">Q2hlY2s=</rs:fixity><rs:size>1</rs:size><x:y xmlns:x="urn:x" x:a="1">t<z/></x:y></url></urlset>`,
	"\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><!DOCTYPE urlset><!-- c --><urlset><url><loc>caf\xe9</loc></url></urlset>",
	`<!DOCTYPE x [<!ENTITY a "b">]><urlset/>`,
	`<html lang=en><body>`,
	`<urlset><url><loc>a</lo`,
}

func FuzzDecode(f *testing.F) {
	for _, s := range decFuzzSeeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join(chkConformanceDir, decSpecExamples))
	if len(files) == 0 {
		f.Fatalf("no file matches %s in %s", decSpecExamples, chkConformanceDir)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bytes.NewReader(data), DecoderOptions{MaxTokenBytes: 1 << 16, MaxDepth: 64})
		h, err := d.Header()
		if h == nil {
			t.Fatal("Header returned nil")
		}
		if err != nil {
			return
		}
		var e Entry
		tab := NewEntryTable()
		// Every entry needs at least a few bytes: more Next calls than that
		// means the decoder does not terminate.
		for n := 0; ; n++ {
			if n > len(data)+1 {
				t.Fatalf("more than %d entries from %d bytes", n, len(data))
			}
			err := d.Next(&e)
			if err == io.EOF {
				break
			}
			if err != nil {
				if d.Next(&e) == nil {
					t.Fatal("Next succeeded after an error")
				}
				return
			}
			if e.Index != n {
				t.Fatalf("entry %d has index %d", n, e.Index)
			}
			// The entry table gives back what it was given.
			if k := tab.Append(&e); !reflect.DeepEqual(tab.Entry(k), e) {
				t.Fatalf("entry table round trip of entry %d:\n got %+v\nwant %+v", n, tab.Entry(k), e)
			}
		}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) && d.BytesRead() > int64(len(data))*4+4 {
			t.Fatalf("read %d bytes from %d", d.BytesRead(), len(data))
		}
	})
}

// FuzzFastHashList checks that the decoder's fast path for hash attributes agrees
// with ParseHashList.
func FuzzFastHashList(f *testing.F) {
	f.Add("md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784")
	f.Add("sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709")
	f.Add("md5:Yx8m6CqWBJjKT5VBggoWeQ==")
	f.Fuzz(func(t *testing.T, s string) {
		decCheckFastHash(t, s)
	})
}
