package crawl

import (
	"context"
	"testing"
	"time"

	"rsx/demo"
	"rsx/fetch"
)

// walkDemo walks the whole demo Source with checks, through the real client.
func walkDemo(t *testing.T, broken bool) *Node {
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
	root, err := NewGraph(client, GraphOptions{}).Walk(ctx, d.SourceDescription, WalkOptions{Depth: Unlimited, Check: true})
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
