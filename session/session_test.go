package session

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"rsx/claims"
	"rsx/demo"
	"rsx/model"
)

// The session against a live demo Source, the way the explorer drives it:
// a Resource List index, one of its parts, the path up to the Source
// Description, discovery, the raw text, cross-document checks and the
// check of a resource against its claims.
func TestSessionAgainstTheDemo(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 120, ListSize: 40, PackageSize: 30})
	idx := load(t, s, srv.URL+"/dataset1/resourcelist.xml")
	res := idx.done[0]
	if res.Err != nil || idx.header == nil || idx.header.Root != model.RootSitemapIndex {
		t.Fatalf("index: %v, header %+v", res.Err, idx.header)
	}
	if len(idx.entries) < 2 || res.Raw == nil || res.Exchange == nil || res.Exchange.Status != 200 {
		t.Fatalf("index: %d entries, raw %d bytes, exchange %+v", len(idx.entries), len(res.Raw), res.Exchange)
	}

	partURL := idx.entries[0].Loc
	part := load(t, s, partURL)
	pr := part.done[0]
	if pr.Err != nil || pr.Errors != 0 || len(part.entries) == 0 {
		t.Fatalf("part: %v, %d errors, %d entries", pr.Err, pr.Errors, len(part.entries))
	}
	for _, n := range part.batches {
		if n > 16 {
			t.Errorf("a batch of %d entries, more than BatchSize", n)
		}
	}
	if pr.Bytes != int64(len(pr.Raw)) || part.total != pr.Bytes && part.total != -1 {
		t.Errorf("part: %d bytes read, raw %d, total %d", pr.Bytes, len(pr.Raw), part.total)
	}

	crumbs, err := s.Ancestors(context.Background(), partURL, part.header)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range crumbs {
		titles = append(titles, c.Title())
	}
	if got := strings.Join(titles, " › "); got != "Source Description › Capability List › Resource List Index" {
		t.Errorf("ancestors: %s", got)
	}

	disc, err := s.Discover(context.Background(), srv.URL+"/")
	if err != nil || disc.SourceDescription != srv.URL+"/.well-known/resourcesync" {
		t.Errorf("discover: %v, %+v", err, disc)
	}

	rc, size, err := s.OpenRaw(context.Background(), partURL)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(raw) != string(pr.Raw) || (size != -1 && size != int64(len(raw))) {
		t.Errorf("raw: %v, %d bytes of %d", err, len(raw), size)
	}

	if _, err := s.CrossCheck(context.Background(), srv.URL+"/dataset1/capabilitylist.xml", nil); err != nil {
		t.Errorf("cross-check: %v", err)
	}

	e := part.entries[0]
	r := s.CheckResource(context.Background(), claims.Targets(e)[0], nil)
	if r.Verdict() != claims.OK || len(r.Preview) == 0 {
		t.Errorf("resource %s: %v\n%+v", e.Loc, r.Verdict(), r.Checks)
	}
	if len(s.Exchanges()) < 5 {
		t.Errorf("%d exchanges recorded", len(s.Exchanges()))
	}
}

// The broken demo's stale second mirror is found, and its first mirror
// holds to the entry's claims.
func TestSessionBrokenMirror(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60, ListSize: 60, Broken: true})
	list := load(t, s, srv.URL+"/dataset1/resourcelist.xml")
	checked := 0
	for _, e := range list.entries {
		for _, tg := range claims.Targets(e)[1:] {
			want := claims.OK
			switch {
			case strings.Contains(tg.URL, "/mirror2/"):
				want = claims.Mismatch
			case !strings.Contains(tg.URL, "/mirror1/"):
				continue
			}
			checked++
			if r := s.CheckResource(context.Background(), tg, nil); r.Verdict() != want {
				t.Errorf("%s: %v, want %v\n%+v", tg.URL, r.Verdict(), want, r.Checks)
			}
		}
	}
	if checked < 4 {
		t.Fatalf("only %d mirrors in the broken demo", checked)
	}
}

func TestLoadCancelled(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &recorder{}
	err := s.LoadDocument(ctx, srv.URL+"/dataset1/resourcelist.xml", r)
	if !errors.Is(err, context.Canceled) || len(r.done) != 1 {
		t.Errorf("cancelled load: %v, Done %d times", err, len(r.done))
	}
}
