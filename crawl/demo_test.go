package crawl

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/fetch"
	"rsx/model"
)

// walkDemo walks the whole demo Source with checks, through the real client.
func walkDemo(t *testing.T, broken bool) *Node {
	t.Helper()
	return walkDemoWith(t, broken, false)
}

// walkDemoWith walks the demo Source, into its archives when archives is set.
func walkDemoWith(t *testing.T, broken, archives bool) *Node {
	t.Helper()
	wait := 60 * time.Second
	if raceEnabled {
		wait *= 5 // the race detector makes a walk several times slower
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 3000, ListSize: 1000, Broken: broken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Discover(ctx, client, srv.URL+"/", DiscoverOptions{})
	if err != nil || d.SourceDescription == "" {
		t.Fatalf("discover: %v %+v", err, d)
	}
	root, err := NewGraph(client, GraphOptions{}).Walk(ctx, d.SourceDescription, WalkOptions{Depth: Unlimited, Check: true, Archives: archives})
	if err != nil {
		t.Fatal(err)
	}
	// The same walk streamed, from a Source of its own (the broken demo
	// fails some documents only the first time they are asked for).
	again, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 3000, ListSize: 1000, Broken: broken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	root.Replay(func(n *Node) {
		if n.Document != nil {
			n.URL = strings.Replace(n.URL, srv.URL, again.URL, 1)
		}
		if n.Via != nil {
			n.Via.Loc = strings.Replace(n.Via.Loc, srv.URL, again.URL, 1)
		}
		for i := range n.Cross {
			n.Cross[i].Message = strings.ReplaceAll(n.Cross[i].Message, srv.URL, again.URL)
		}
	})
	streamAgrees(t, client, strings.Replace(d.SourceDescription, srv.URL, again.URL, 1), WalkOptions{Depth: Unlimited, Check: true, Archives: archives}, root, again.URL)
	root.Replay(func(n *Node) {
		if n.Document != nil {
			n.URL = strings.Replace(n.URL, again.URL, srv.URL, 1)
		}
		if n.Via != nil {
			n.Via.Loc = strings.Replace(n.Via.Loc, again.URL, srv.URL, 1)
		}
		for i := range n.Cross {
			n.Cross[i].Message = strings.ReplaceAll(n.Cross[i].Message, again.URL, srv.URL)
		}
	})
	return root
}

func TestWalkDemoHasNoCrossProblems(t *testing.T) {
	root := walkDemo(t, false)
	docs := 0
	root.Walk(func(n *Node) bool {
		docs++
		if n.Err != nil || len(n.Cross) != 0 {
			t.Errorf("%s: err %v, cross %+v", n.URL, n.Err, n.Cross)
		}
		return true
	})
	if docs < 10 {
		t.Errorf("only %d documents in the demo tree", docs)
	}
}

func TestWalkBrokenDemoFindsCrossProblems(t *testing.T) {
	root := walkDemo(t, true)
	rules := map[string]int{}
	root.Walk(func(n *Node) bool {
		for _, p := range n.Cross {
			rules[p.Rule]++
		}
		return true
	})
	// The broken demo seeds a missing index part, a Resource Dump listed in
	// a Resource List Index and a wrong up link, among others.
	if len(rules) < 3 {
		t.Errorf("cross-document rules broken in the broken demo: %v", rules)
	}
}

// TestWalkDemoArchives: the demo's archives are nodes of the walk; walked
// into, the clean demo's agree with the documents they list, and the broken
// demo's Change List Archive does not.
func TestWalkDemoArchives(t *testing.T) {
	for _, broken := range []bool{false, true} {
		for _, archives := range []bool{false, true} {
			root := walkDemoWith(t, broken, archives)
			found, walked, interval := 0, 0, 0
			root.Walk(func(n *Node) bool {
				if n.Capability().IsArchive() {
					found++
					if !n.ArchiveNotWalked {
						walked++
					}
				}
				for _, p := range n.Cross {
					if p.Rule == RuleArchiveEntryInterval {
						interval++
					}
					if !broken {
						t.Errorf("archives %v: %s: %s %s", archives, n.URL, p.Rule, p.Message)
					}
				}
				return true
			})
			if found != 2 || (walked == 2) != archives {
				t.Errorf("broken %v archives %v: %d archives, %d walked", broken, archives, found, walked)
			}
			if (interval > 0) != (broken && archives) {
				t.Errorf("broken %v archives %v: %d archive-entry-interval problems", broken, archives, interval)
			}
		}
	}
}

// TestLoadHistoryDemo: a copy brought up to date when the demo's history
// began can catch up only through the Change List Archive.
func TestLoadHistoryDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	h, err := LoadHistory(ctx, NewGraph(client, GraphOptions{}), srv.URL+"/dataset1/changelist.xml", HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	since := h.ArchivedPeriods[0].From.Add(time.Minute)
	if plan := model.PlanCatchUp(since, nil, h.LivePeriods); plan.Gap == nil {
		t.Errorf("the index alone reaches back: %+v", plan)
	}
	plan := h.CatchUp(since)
	if plan.Gap != nil || len(plan.Archived()) != len(h.ArchivedPeriods) || len(plan.Lists) != len(h.ArchivedPeriods)+len(h.LivePeriods) {
		t.Errorf("plan %+v", plan)
	}
	if _, segs := h.Coverage(); len(segs) != len(plan.Lists) {
		t.Errorf("coverage: %d segments for %d contiguous lists", len(segs), len(plan.Lists))
	}
}

// TestListingProblemsAndCheckListedAgreeWithTheWalk: the problems a full
// walk places on each part of the broken demo's Resource List Index are
// those a view of the index shows at the part's entry (CheckListing,
// ListingProblems) and those a check of the part against the documents
// above it finds (CheckListed): part 3, a Resource Dump, has
// index-child-capability and archives-link-capability (its archives link
// points to the Resource List Archive) in all three. From the index alone,
// without the Capability List, the latter cannot be seen.
func TestListingProblemsAndCheckListedAgreeWithTheWalk(t *testing.T) {
	wait := 60 * time.Second
	if raceEnabled {
		wait *= 5 // the race detector makes a walk several times slower
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 3000, ListSize: 1000, Broken: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	capList := srv.URL + "/dataset1/capabilitylist.xml"
	index := srv.URL + "/dataset1/resourcelist.xml"
	full, err := NewGraph(client, GraphOptions{}).Walk(ctx, capList, WalkOptions{Depth: Unlimited, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	var idx *Node
	full.Walk(func(n *Node) bool {
		if n.Document != nil && n.URL == index {
			idx = n
		}
		return idx == nil
	})
	if idx == nil {
		t.Fatal("the walk did not reach the Resource List Index")
	}
	listing, reached, err := NewGraph(client, GraphOptions{}).CheckListing(ctx, []string{capList}, index, false)
	if err != nil || !reached {
		t.Fatalf("CheckListing: reached %v, %v", reached, err)
	}
	alone, _, err := NewGraph(client, GraphOptions{}).CheckListing(ctx, nil, index, false)
	if err != nil {
		t.Fatal(err)
	}
	rules := func(ps []model.Problem, entry int) []string {
		var out []string
		for _, p := range ps {
			if p.Entry == entry && p.Rule != RuleChildUnreachable && p.Rule != RuleChildUnreadable {
				out = append(out, p.Rule)
			}
		}
		slices.Sort(out)
		return out
	}
	found := 0
	for _, c := range idx.Children {
		if c.Document == nil || c.Header == nil {
			continue
		}
		walked := rules(c.Cross, -1)
		atEntry := rules(listing, c.Via.Entry)
		listed, reached, err := NewGraph(client, GraphOptions{}).CheckListed(ctx, []string{capList, index}, c.URL, false)
		if err != nil || !reached {
			t.Fatalf("CheckListed %s: reached %v, %v", c.URL, reached, err)
		}
		own := rules(listed, -1)
		if !slices.Equal(walked, atEntry) || !slices.Equal(walked, own) {
			t.Errorf("%s: the walk places %v on it, the index's view shows %v at its entry, CheckListed finds %v", c.URL, walked, atEntry, own)
		}
		if slices.Contains(walked, RuleIndexChildCapability) && slices.Contains(walked, RuleArchivesLinkCapability) {
			found++
			if got := rules(alone, c.Via.Entry); !slices.Contains(got, RuleIndexChildCapability) || slices.Contains(got, RuleArchivesLinkCapability) {
				t.Errorf("%s: from the index alone, %v at its entry", c.URL, got)
			}
		}
	}
	if found != 1 {
		t.Errorf("%d parts of the broken demo's Resource List Index have index-child-capability and archives-link-capability, want 1", found)
	}
}
