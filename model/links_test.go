package model

import (
	"slices"
	"strings"
	"testing"
)

func TestRelTokens(t *testing.T) {
	for _, tc := range []struct {
		rels string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"up", []string{"up"}},
		{" duplicate\tmirror \n", []string{"duplicate", "mirror"}},
		{"a\fb\vc\rd", []string{"a", "b", "c", "d"}},
		{"x\u00a0y", []string{"x\u00a0y"}}, // only ASCII white space separates
	} {
		var got []string
		for tok := range RelTokens(tc.rels) {
			got = append(got, tok)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("RelTokens(%q) = %q, want %q", tc.rels, got, tc.want)
		}
	}
	// Breaking out of the loop stops the iteration.
	n := 0
	for range RelTokens("a b c") {
		n++
		break
	}
	if n != 1 {
		t.Errorf("break after the first token: %d tokens seen", n)
	}
}

func TestRelMatchesAndHasRel(t *testing.T) {
	for _, tc := range []struct {
		rels, rel string
		want      bool
	}{
		{"up", "up", true},
		{"UP", "up", true},
		{"index up", "up", true},
		{"upper", "up", false},
		{"", "up", false},
		{"duplicate mirror", "duplicate", true},
		{RelPatch, RelPatch, true},
		{strings.ToUpper(RelPatch), RelPatch, false}, // an extension type is a URI: exact
		{"Contents", "contents", true},
		{"contents\u00a0", "contents", false},
	} {
		if got := HasRel(tc.rels, tc.rel); got != tc.want {
			t.Errorf("HasRel(%q, %q) = %v, want %v", tc.rels, tc.rel, got, tc.want)
		}
	}
	if !RelMatches("Memento", "memento") || RelMatches("memento", "mementos") {
		t.Error("RelMatches compares whole registered names, case-insensitively")
	}
}

func TestResolveHref(t *testing.T) {
	for _, tc := range []struct {
		base, ref, want string
	}{
		{"http://e.com/a/b.xml", "c.xml", "http://e.com/a/c.xml"},
		{"http://e.com/a/b.xml", "  ../c.xml\n", "http://e.com/c.xml"},
		{"http://e.com/a/b.xml", "/r/1", "http://e.com/r/1"},
		{"http://e.com/a/b.xml", "http://x.org/../y", "http://x.org/y"},
		{"http://e.com/a/b.xml", "", "http://e.com/a/b.xml"},
		{"http://e.com/a/b.xml", "http://[::1", "http://[::1"}, // not a URI reference: as written
		{"http://e.com/%zz", "c.xml", "c.xml"},                 // the base does not parse
		{"file:///tmp/d/x.xml", "y.xml", "file:///tmp/d/y.xml"},
		{"testdata/dump/r.xml", "p.zip", "testdata/dump/p.zip"},
		{"testdata/dump/r.xml", "../p.zip", "testdata/p.zip"},
		{"/srv/d/r.xml", "/etc/other.xml", "/etc/other.xml"},
		{"/srv/d/r.xml", "http://e.com/x", "http://e.com/x"},
		{"", "x.xml", "x.xml"},
	} {
		if got := ResolveHref(tc.base, tc.ref); got != tc.want {
			t.Errorf("ResolveHref(%q, %q) = %q, want %q", tc.base, tc.ref, got, tc.want)
		}
	}
}

func TestLinkHrefs(t *testing.T) {
	links := []Link{
		{Rel: "up", Href: "cl.xml", HasRel: true, HasHref: true},
		{Rel: "index", Href: "i.xml", HasRel: true, HasHref: true},
		{Rel: "UP", Href: "", HasRel: true, HasHref: true}, // the document itself
		{Rel: "up", HasRel: true},                          // no href: left out
	}
	got := LinkHrefs(links, "up", "http://e.com/d/rl.xml")
	want := []string{"http://e.com/d/cl.xml", "http://e.com/d/rl.xml"}
	if !slices.Equal(got, want) {
		t.Errorf("LinkHrefs = %q, want %q", got, want)
	}
	if got := LinkHrefs(links, "describedby", "http://e.com/"); got != nil {
		t.Errorf("no such relation: %q", got)
	}
}

func TestTargetKinds(t *testing.T) {
	for _, tc := range []struct {
		target      string
		http, local bool
		path        string
	}{
		{"http://e.com/x", true, false, ""},
		{"HTTPS://e.com/x", true, false, ""},
		{"http:e.com", false, false, ""}, // not a URL rsx fetches, not a file
		{"ftp://e.com/x", false, false, ""},
		{"mailto:a@e.com", false, false, ""},
		{"file:///tmp/x.xml", false, true, "/tmp/x.xml"},
		{"FILE:///tmp/x.xml", false, true, "/tmp/x.xml"},
		{"file:rel.xml", false, false, ""}, // only file:// URLs name files
		{"/tmp/x.xml", false, true, "/tmp/x.xml"},
		{"x.xml", false, true, "x.xml"},
		{"./a:b.xml", false, true, "./a:b.xml"},
		{`C:\data\x.xml`, false, true, `C:\data\x.xml`},
		{"-", false, true, "-"},
		{"", false, true, ""},
	} {
		if got := IsHTTPURL(tc.target); got != tc.http {
			t.Errorf("IsHTTPURL(%q) = %v", tc.target, got)
		}
		if got := IsLocal(tc.target); got != tc.local {
			t.Errorf("IsLocal(%q) = %v", tc.target, got)
		}
		if tc.local {
			if got := LocalPath(tc.target); got != tc.path {
				t.Errorf("LocalPath(%q) = %q, want %q", tc.target, got, tc.path)
			}
		}
	}
}

func TestMayFollow(t *testing.T) {
	for _, tc := range []struct {
		from, target string
		want         bool
	}{
		{"http://e.com/rl.xml", "http://e.com/r1", true},
		{"http://e.com/rl.xml", "https://m.org/r1", true},
		{"http://e.com/rl.xml", "file:///etc/passwd", false},
		{"http://e.com/rl.xml", "/etc/passwd", false},
		{"http://e.com/rl.xml", "ftp://e.com/r1", false},
		{"/srv/rl.xml", "/srv/res/r1", true},
		{"/srv/rl.xml", "file:///srv/res/r1", true},
		{"file:///srv/rl.xml", "r1.xml", true},
		{"/srv/rl.xml", "http://e.com/r1", true},
		{"/srv/rl.xml", "javascript:alert(1)", false},
	} {
		if got := MayFollow(tc.from, tc.target); got != tc.want {
			t.Errorf("MayFollow(%q, %q) = %v, want %v", tc.from, tc.target, got, tc.want)
		}
	}
}

// FuzzRelTokens: the tokens are those strings.Fields finds when only ASCII
// white space is involved, and none is empty or holds white space.
func FuzzRelTokens(f *testing.F) {
	for _, s := range []string{"", "up", " a  b\t", "duplicate mirror\n", RelPatch + " up"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rels string) {
		var got []string
		for tok := range RelTokens(rels) {
			if tok == "" || strings.ContainsAny(tok, " \t\n\r\f\v") {
				t.Fatalf("token %q of %q", tok, rels)
			}
			got = append(got, tok)
		}
		ascii := strings.FieldsFunc(rels, func(r rune) bool { return r < 0x80 && isCheckSpace(byte(r)) })
		if !slices.Equal(got, ascii) {
			t.Fatalf("RelTokens(%q) = %q, want %q", rels, got, ascii)
		}
		for _, tok := range got {
			if !HasRel(rels, tok) {
				t.Fatalf("HasRel(%q, %q) is false for one of its tokens", rels, tok)
			}
		}
	})
}

func TestHeaderLinkHref(t *testing.T) {
	h := &Header{Links: []Link{
		{Rel: "describedby", Href: "about.html", HasHref: true},
		{Rel: "up", Href: "", HasHref: true},
		{Rel: "UP", Href: " capabilitylist.xml ", HasHref: true},
		{Rel: "index", HasHref: false},
	}}
	for _, tc := range []struct{ rel, want string }{
		{"up", "http://example.com/ds/capabilitylist.xml"},
		{"describedby", "http://example.com/ds/about.html"},
		{"index", ""},
		{"alternate", ""},
	} {
		if got := h.LinkHref(tc.rel, "http://example.com/ds/resourcelist.xml"); got != tc.want {
			t.Errorf("LinkHref(%q) = %q, want %q", tc.rel, got, tc.want)
		}
	}
	var none *Header
	if got := none.LinkHref("up", "http://example.com/"); got != "" {
		t.Errorf("nil header: %q", got)
	}
}
