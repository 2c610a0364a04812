package crawl

import (
	"context"
	"slices"
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
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
// those a view of the index shows at the part's entry (ListingProblems)
// and those a check of the part against the index finds (CheckListed):
// part 3, a Resource Dump, has index-child-capability in all three.
func TestListingProblemsAndCheckListedAgreeWithTheWalk(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
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
	shallow, err := NewGraph(client, GraphOptions{}).Walk(ctx, index, WalkOptions{Depth: 1, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	listing := shallow.ListingProblems()
	found := false
	for _, c := range idx.Children {
		if c.Document == nil || c.Header == nil {
			continue
		}
		var walked []string
		for _, p := range c.Cross {
			// archives-link-capability is found from the Capability List
			// above the index (the archives it lists), which neither view
			// of the index loads.
			if p.Entry < 0 && p.Rule != RuleArchivesLinkCapability {
				walked = append(walked, p.Rule)
			}
		}
		var atEntry []string
		for _, p := range listing {
			if p.Entry == c.Via.Entry && p.Rule != RuleChildUnreachable && p.Rule != RuleChildUnreadable {
				atEntry = append(atEntry, p.Rule)
			}
		}
		listed, err := NewGraph(client, GraphOptions{}).CheckListed(ctx, index, c.URL, false)
		if err != nil {
			t.Fatal(err)
		}
		var own []string
		for _, p := range listed {
			own = append(own, p.Rule)
		}
		if !slices.Equal(walked, atEntry) || !slices.Equal(walked, own) {
			t.Errorf("%s: the walk places %v on it, the index's view shows %v at its entry, CheckListed finds %v", c.URL, walked, atEntry, own)
		}
		if slices.Contains(walked, RuleIndexChildCapability) {
			found = true
		}
	}
	if !found {
		t.Error("no part of the broken demo's Resource List Index has index-child-capability")
	}
}
