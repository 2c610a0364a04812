package claims

import (
	"strings"
	"testing"

	"rsx/model"
)

func TestMirrorOrder(t *testing.T) {
	links := []model.Link{
		{Rel: "duplicate", Href: "http://m/absent"},                                // 999999
		{Rel: "alternate", Href: "http://m/alt", Pri: 1, PriRaw: "1", PriOK: true}, // not a mirror
		{Rel: "duplicate", Href: "http://m/p5", Pri: 5, PriRaw: "5", PriOK: true},
		{Rel: "duplicate", Href: "http://m/bad", PriRaw: "high"}, // invalid: 999999
		{Rel: "DUPLICATE alternate", Href: "http://m/p2", Pri: 2, PriRaw: "2", PriOK: true},
		{Rel: "duplicate", Href: "http://m/p5b", Pri: 5, PriRaw: "5", PriOK: true},
		{Rel: "duplicate", Href: "http://m/max", Pri: 999999, PriRaw: "999999", PriOK: true},
	}
	var got []string
	for _, i := range MirrorOrder(links) {
		got = append(got, strings.TrimPrefix(links[i].Href, "http://m/"))
	}
	if want := "p2 p5 p5b absent bad max"; strings.Join(got, " ") != want {
		t.Errorf("mirror order = %v, want %s", got, want)
	}
}

func TestOfMirror(t *testing.T) {
	e := model.Entry{Loc: "http://example.com/dir/r", Lastmod: datetime(t, "2013-01-02"),
		MD: model.Metadata{Type: "text/html", Length: 10, LengthRaw: "10", LengthOK: true, Hash: hashes(t, "md5:"+md5Hex("x"))}}
	own := model.Link{Rel: "duplicate", Href: "/m", Type: "text/plain", HashRaw: "sha-256:" + sha256Hex("x"), Hash: hashes(t, "sha-256:"+sha256Hex("x")),
		Modified: datetime(t, "2014-01-01")}
	bare := model.Link{Rel: "duplicate", Href: "m2", Pri: 3, PriRaw: "3", PriOK: true}
	c := OfMirror(e, own)
	if c.Type != "text/plain" || c.Length != 10 || len(c.Hash) != 1 || c.Hash[0].Alg != "sha-256" || c.Lastmod.Raw != "2014-01-01" {
		t.Errorf("mirror with its own attributes: %+v", c)
	}
	if c := OfMirror(e, bare); c.Type != "text/html" || c.LengthRaw != "10" || c.Hash[0].Alg != "md5" || c.Lastmod.Raw != "2013-01-02" {
		t.Errorf("bare mirror: %+v", c)
	}
	e.Links = []model.Link{{Rel: "alternate", Href: "x.pdf"}, own, bare}
	ts := Targets(e)
	if len(ts) != 3 {
		t.Fatalf("%d targets", len(ts))
	}
	want := []Target{
		{URL: "http://example.com/dir/r", Mirror: 0, Link: -1},
		{URL: "http://example.com/dir/m2", Mirror: 1, Pri: 3, Link: 2},
		{URL: "http://example.com/m", Mirror: 2, Pri: model.MaxPri, Link: 1},
	}
	for i, w := range want {
		g := ts[i]
		if g.URL != w.URL || g.Mirror != w.Mirror || g.Pri != w.Pri || g.Link != w.Link {
			t.Errorf("target %d = %+v, want %+v", i, g, w)
		}
	}
	if ts[2].Claims.Type != "text/plain" || ts[0].Claims.Type != "text/html" {
		t.Errorf("claims of the targets: %+v", ts)
	}
}

func TestFetchable(t *testing.T) {
	for u, want := range map[string]bool{
		"http://example.com/a":  true,
		"HTTPS://example.com/a": true,
		"https:///nohost":       false,
		"file:///etc/passwd":    false,
		"/etc/passwd":           false,
		"rsync://m.example/r":   false,
		"gsiftp://grid/r":       false,
		"http://[::1":           false,
		"":                      false,
	} {
		if got := Fetchable(u); got != want {
			t.Errorf("Fetchable(%q) = %v", u, got)
		}
	}
}
