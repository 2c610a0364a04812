package model

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestPrecheckValidate: what block decoders compute for the checker
// (check_pre.go) gives the reports the checker gives alone: a Resource List
// and a Change List (no duplicate set) with locs of every kind of problem and
// duplicates far apart, validated sequentially and on the parallel path.
func TestPrecheckValidate(t *testing.T) {
	locs := []string{
		"http://e.com/a b", "http://e.com/%zz", "e.com/relative", "http:/e.com/no-host", "https://@/x",
		"http://e.com/<x>", "HTTP://E.COM/upper", "urn:x:y", "9http://e.com/digit", "x-http://e.com/", "http://e.com/caf\u00e9", "http://e.com/ok/%d",
	}
	for _, capb := range []string{"resourcelist", "changelist"} {
		root := fmt.Sprintf("<?xml version=\"1.0\"?>\n<urlset %s %s>\n<rs:md capability=%q from=\"2013-01-01T00:00:00Z\"/>\n", decSM, decRS, capb)
		doc := parDoc(root, func(i int) string {
			loc := fmt.Sprintf("http://e.com/res/%d", i)
			switch {
			case i%7 == 3:
				loc = strings.ReplaceAll(locs[i/7%len(locs)], "%d", strconv.Itoa(i))
			case i%11 == 5:
				loc = fmt.Sprintf("http://e.com/res/%d", i/2) // a duplicate of an earlier one
			}
			return fmt.Sprintf("<url>\n  <loc>%s</loc>\n  <lastmod>2013-01-02T13:00:00Z</lastmod>\n  <rs:md change=\"updated\" datetime=\"2013-01-02T13:00:00Z\" length=\"%d\"/>\n</url>\n", loc, i)
		}, 3000, "</urlset>\n")
		want := validate(bytes.NewReader(doc), CheckOptions{}, DecoderOptions{})
		if want.Errors == 0 {
			t.Fatalf("%s: no errors found: the test proves nothing", capb)
		}
		for _, o := range []DecoderOptions{{Parallel: 2, blockSize: 1024, Reuse: true}, {Parallel: 2, blockSize: 4096, Reuse: true}, {Parallel: 3, blockSize: 2048}} {
			d := NewDecoder(bytes.NewReader(doc), o)
			got := validate(bytes.NewReader(doc), CheckOptions{}, o)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%s, %+v: reports differ:\n got %+v\nwant %+v", capb, o, got, want)
			}
			_ = d.Close()
		}
	}
}

// TestPrecheckUsed: on the parallel path the checker gets entryPre values
// for the blocks' entries (else the test above would prove nothing).
func TestPrecheckUsed(t *testing.T) {
	data := benchResourceList(t, 2000)
	dec := NewDecoder(bytes.NewReader(data), DecoderOptions{Parallel: 2, blockSize: 4096, Reuse: true})
	defer dec.Close()
	c := NewChecker(CheckOptions{})
	h, err := dec.Header()
	if err != nil {
		t.Fatal(err)
	}
	c.Begin(h)
	dec.precheck(c)
	pre, blocks := 0, 0
	var buf Entry
	for {
		e, err := dec.nextShared(&buf)
		if err != nil {
			break
		}
		if dec.blockPre() != nil {
			blocks++
		}
		if p := dec.lastPre(); p != nil {
			if !p.ok || !p.hashed || p.bad != chkURI(e.Loc) {
				t.Fatalf("entry %d: %+v for %q", e.Index, *p, e.Loc)
			}
			pre++
		}
	}
	if pre < 1900 || blocks < 50 {
		t.Fatalf("%d entries of %d blocks came with an entryPre", pre, blocks)
	}
}
