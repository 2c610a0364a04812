package spotcheck

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"rsx/demo"
	"rsx/model"
)

func startDemo(t *testing.T, o demo.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL
}

// parsePart fetches and parses a document of a demo Source.
func parsePart(t *testing.T, url string) *model.Document {
	t.Helper()
	resp, err := testClient(t).Get(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := model.Parse(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return doc
}

// The clean demo Source: every claim holds.
func TestAuditCleanDemo(t *testing.T) {
	base := startDemo(t, demo.Options{Resources: 1200, ListSize: 200, Seed: 11})
	rep := runAudit(t, base+"/.well-known/resourcesync", Options{})
	if rep.Wrong() || len(rep.Warnings)+len(rep.Unchecked)+len(rep.Unread()) > 0 || !rep.Complete() {
		t.Errorf("mismatched %v\nwarnings %v\nunchecked %v\nunread %v\nstopped %q", rep.Mismatched, rep.Warnings, rep.Unchecked, rep.Unread(), rep.Stopped)
	}
	if rep.Checked != int(rep.Listed) || rep.OK != rep.Checked || rep.Checked < 1200 || rep.MirrorsChecked == 0 || rep.MirrorsOK != rep.MirrorsChecked {
		t.Errorf("checked %d of %d listed, ok %d, mirrors %d of %d", rep.Checked, rep.Listed, rep.OK, rep.MirrorsOK, rep.MirrorsChecked)
	}
}

// The broken demo Source: each false claim it seeds is named, and nothing
// else. What is false is found by comparing its first Resource List part
// with that of the clean demo of the same seed, entry by entry.
func TestAuditBrokenDemo(t *testing.T) {
	opts := demo.Options{Resources: 1200, ListSize: 200, Seed: 11}
	clean := startDemo(t, opts)
	opts.Broken = true
	broken := startDemo(t, opts)
	truth := parsePart(t, clean+"/dataset1/resourcelist-0001.xml")
	seeded := parsePart(t, broken+"/dataset1/resourcelist-0001.xml")
	if len(truth.Entries) != len(seeded.Entries) {
		t.Fatalf("part 1: %d entries, clean %d", len(seeded.Entries), len(truth.Entries))
	}

	var wantMismatched, wantUnchecked []string
	faulted := map[string]bool{}
	expect := func(e model.Entry, fields ...string) {
		path := strings.TrimPrefix(e.Loc, broken)
		faulted[path] = true
		targets := []string{path}
		for _, l := range e.Links {
			if model.HasRel(l.Rel, "duplicate") {
				targets = append(targets, path+">"+strings.TrimPrefix(l.Href, broken))
			}
		}
		for _, tg := range targets {
			for _, f := range fields {
				if !strings.Contains(tg, "/mirror2/") { // the stale mirror is judged below
					wantMismatched = append(wantMismatched, tg+" "+f)
				}
			}
		}
	}
	for i, e := range seeded.Entries {
		c := truth.Entries[i]
		switch {
		case !strings.HasPrefix(e.Loc, "http"):
			wantUnchecked = append(wantUnchecked, e.Loc+" loc")
		case strings.HasSuffix(e.Loc, "/broken/loop-a"):
			wantMismatched = append(wantMismatched, "/broken/loop-a status")
		case strings.Contains(e.MD.HashRaw, "not-hex"):
			expect(e, "md5")
		case e.MD.LengthRaw != c.MD.LengthRaw:
			expect(e, "length")
		case e.MD.Type != c.MD.Type && e.MD.Type != "":
			expect(e, "type")
		case e.MD.HashRaw != "" && !bytes.Equal(e.MD.Hash[0].Digest, c.MD.Hash[0].Digest):
			expect(e, "md5", "sha-256")
		case !e.Lastmod.OK:
			wantUnchecked = append(wantUnchecked, strings.TrimPrefix(e.Loc, broken)+" lastmod")
		}
	}
	slices.Sort(wantMismatched)
	slices.Sort(wantUnchecked)
	if len(wantMismatched) < 5 || len(wantUnchecked) != 2 {
		t.Fatalf("the broken demo seeds fewer faults than this test knows: %v %v", wantMismatched, wantUnchecked)
	}

	t.Logf("seeded: %v; unchecked %v", wantMismatched, wantUnchecked)
	rep := runAudit(t, broken+"/.well-known/resourcesync", Options{})
	var gotMismatched []string
	for _, f := range findings(broken, rep.Mismatched) {
		path, field, _ := strings.Cut(f, " ")
		if strings.Contains(path, ">/mirror2/") {
			// The stale mirror serves the previous version: its bytes,
			// and maybe its length, are not what is declared.
			if field != "md5" && field != "sha-256" && field != "length" && !(field == "type" && faulted[strings.Split(path, ">")[0]]) {
				t.Errorf("stale mirror: unexpected %s", f)
			}
			continue
		}
		gotMismatched = append(gotMismatched, f)
	}
	if !slices.Equal(gotMismatched, wantMismatched) {
		t.Errorf("mismatched (the stale mirror aside):\n%s\nwant:\n%s", strings.Join(gotMismatched, "\n"), strings.Join(wantMismatched, "\n"))
	}
	if got := unchecked(broken, rep.Unchecked); !slices.Equal(got, wantUnchecked) {
		t.Errorf("unchecked %v, want %v", got, wantUnchecked)
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("warnings %v", findings(broken, rep.Warnings))
	}
	stale := 0
	for _, m := range rep.Mirrors {
		is2 := strings.Contains(m.Mirror, "/mirror2/")
		if is2 {
			stale++
		}
		if m.OK == is2 && !faulted[strings.TrimPrefix(m.URL, broken)] {
			t.Errorf("mirror %s ok %v", m.Mirror, m.OK)
		}
	}
	if stale == 0 || len(rep.Mirrors) != rep.MirrorsChecked {
		t.Errorf("%d stale mirrors among %d listed, %d checked", stale, len(rep.Mirrors), rep.MirrorsChecked)
	}
	// Lists: the index's part 0 is 404; part 2 answers 503 every other
	// time (read on retry); part 3 declares the wrong capability.
	unread := rep.Unread()
	if len(unread) != 1 || !strings.HasSuffix(unread[0].URL, "/dataset1/resourcelist-0000.xml") {
		t.Errorf("unread lists %+v", unread)
	}
	for _, l := range rep.Lists {
		if strings.HasSuffix(l.URL, "/resourcelist-0003.xml") && !strings.Contains(l.Note, "resourcedump") {
			t.Errorf("part 3: %+v", l)
		}
		if strings.HasSuffix(l.URL, "/resourcelist-0002.xml") && (l.Err != nil || l.Entries == 0) {
			t.Errorf("part 2: %+v", l)
		}
	}
}
