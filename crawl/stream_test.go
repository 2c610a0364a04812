package crawl

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"rsx/fetch"
	"rsx/model"
)

// streamed describes what a streamed walk hands over of n: its place, its
// marks, its document and its cross-document problems in the order a report
// gives them (by entry, as validate --recursive sorts them).
func streamed(n *Node, base string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seq %d end %d index %d children %d depth %d", n.Seq, n.End, n.Index, n.NumChildren, n.Depth)
	if n.Via != nil {
		fmt.Fprintf(&b, " via entry %d %s", n.Via.Entry, strings.TrimPrefix(n.Via.Loc, base))
	}
	fmt.Fprintf(&b, " repeat %v skipped %v unexpanded %v archive-not-walked %v", n.Repeat, n.Skipped, n.Unexpanded, n.ArchiveNotWalked)
	if d := n.Document; d != nil {
		fmt.Fprintf(&b, " doc %s status %d entries %d down %d errors %d warnings %d problems %d err %v",
			strings.TrimPrefix(d.URL, base), d.Status, d.EntryCount, d.DownCount, d.Errors, d.Warnings, len(d.Problems), d.Err != nil)
		if d.Header != nil {
			fmt.Fprintf(&b, " %s", d.Capability())
		}
	}
	cross := slices.Clone(n.Cross)
	slices.SortStableFunc(cross, func(a, b model.Problem) int { return a.Entry - b.Entry })
	for _, p := range cross {
		fmt.Fprintf(&b, "\n\t%d %s %s", p.Entry, p.Rule, strings.ReplaceAll(p.Message, base, ""))
	}
	return b.String()
}

// streamAgrees walks url again with WalkStream, through a new graph on
// get, and fails when what it hands over differs from the tree Walk gave
// (replayed).
func streamAgrees(t *testing.T, get fetch.Getter, url string, opts WalkOptions, tree *Node, base string) {
	t.Helper()
	var want, got []string
	tree.Replay(func(n *Node) { want = append(want, streamed(n, base)) })
	root, err := NewGraph(get, GraphOptions{}).WalkStream(testCtx(t), url, opts, func(n *Node) {
		if n.Children != nil {
			t.Errorf("a streamed node keeps its children")
		}
		got = append(got, streamed(n, base))
	})
	if root == nil || (err != nil && root.Header != nil) {
		t.Errorf("WalkStream: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("WalkStream hands over\n%s\n\nWalk's tree, replayed:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWalkStreamKeepsNoPartBehind walks indexes of one-entry Change Lists
// with WalkStream and bounds the heap in use at the end of each walk, before
// the root is let go, per part: the growth from a small index to a larger
// one, so that what a walk keeps whatever the size (its recent documents,
// the links of the index it holds in memory) does not count. What is left is
// the 128-bit hash of each URL reached; Walk keeps a node, a document and a
// down link of each part (3.4 KB a part, issue 23).
func TestWalkStreamKeepsNoPartBehind(t *testing.T) {
	if raceEnabled {
		t.Skip("a heap budget: the race detector's shadow memory counts in it")
	}
	const small, large = 2000, 12000
	a, b := streamedHeap(t, small), streamedHeap(t, large)
	per := (float64(b) - float64(a)) / (large - small)
	t.Logf("heap at the end of the walk: %d bytes at %d parts, %d at %d: %.0f bytes per part", a, small, b, large, per)
	if per > 150 {
		t.Errorf("the streamed walk keeps %.0f bytes per part; at most 150", per)
	}
}

// streamedHeap walks an index of parts parts as rsx tree --depth 1 does and
// returns the heap in use when the walk is done, before its root is let go.
func streamedHeap(t *testing.T, parts int) int64 {
	srv := partsSourceWith(t, parts, true)
	opts := fetch.DefaultOptions()
	opts.NoCache, opts.PerHostRate = true, 0
	client, err := fetch.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	before := heapAlloc()
	g := NewGraph(client, GraphOptions{})
	var seen, problems int
	var kept uint64
	root, err := g.WalkStream(context.Background(), srv.URL+"/cl.xml", WalkOptions{Depth: 1, Check: true, MaxDocuments: Unlimited, TempDir: t.TempDir()}, func(n *Node) {
		seen++
		problems += len(n.Cross)
		if n.Parent == nil {
			kept = heapAlloc() // the whole walk done, the root not yet let go
		}
	})
	if err != nil || seen != parts+1 || root.NumChildren != parts || problems != 0 {
		t.Fatalf("walk: %v, %d nodes, %d children, %d cross-document problems", err, seen, root.NumChildren, problems)
	}
	runtime.KeepAlive(g)
	return int64(kept) - int64(before)
}

// TestDownLinkSpoolRoundTrip: a down link read back from a streamed walk's
// temporary file is the one the document gave (what the checks compare: its
// times, length and digests), and bytes that are not one are an error, not a
// panic.
func TestDownLinkSpoolRoundTrip(t *testing.T) {
	at, _ := model.ParseDatetime("2030-01-02T03:04:05.25+01:00")
	from, _ := model.ParseDatetime("2030-01")
	bad, _ := model.ParseDatetime("yesterday")
	for _, dl := range []DownLink{
		{},
		{Entry: 7, Loc: "http://example.org/cl/7.xml", Capability: model.CapChangeList, From: from, Until: at},
		{Entry: 1 << 40, Loc: "http://example.org/rl.xml?a=b&c=ü", Capability: model.CapResourceList, At: at, Completed: bad,
			Length: 1234, LengthOK: true, Hash: declaredHash("md5:1e0d5cb8ef6ba40c99b14c0237be735e sha-256:xyz")},
		{Entry: 3, Length: -1, LengthOK: false},
	} {
		var got DownLink
		if err := readDownLink(appendDownLink(nil, &dl), &got); err != nil {
			t.Fatalf("%+v: %v", dl, err)
		}
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", dl) {
			t.Errorf("read back\n%#v\nwant\n%#v", got, dl)
		}
	}
	b := appendDownLink(nil, &DownLink{Entry: 2, Loc: "http://example.org/x.xml"})
	for i := range len(b) {
		var got DownLink
		if err := readDownLink(b[:i], &got); err == nil {
			t.Errorf("%d of %d bytes read back as %+v", i, len(b), got)
		}
	}
}
