package engine

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rsx/demo"
	"rsx/dest/state"
)

// A Source's part of DEST: the deepest folder of each first folder that
// holds its copies, widened to its Capability List's folder when that is in
// the same first folder, and its --map folders whole; a file is the
// business of the deepest part that holds it.
func TestSourceParts(t *testing.T) {
	tests := []struct {
		name   string
		src    state.Source
		groups []state.PathGroup
		want   []string
	}{
		{"no copies", state.Source{URL: "http://h/d/cap.xml"}, nil, nil},
		{"the copies and the Capability List's folder",
			state.Source{URL: "http://h/d1/capabilitylist.xml"},
			[]state.PathGroup{{Min: "h/d1/res/000001.html", Max: "h/d1/res/000099.html"}}, []string{"h/d1"}},
		{"a Capability List below the copies",
			state.Source{URL: "http://h/a/meta/cap.xml"},
			[]state.PathGroup{{Min: "h/a/b/1", Max: "h/a/c/2"}}, []string{"h/a"}},
		{"one copy", state.Source{URL: "http://other/cap.xml"},
			[]state.PathGroup{{Min: "h/x/y/f.pdf", Max: "h/x/y/f.pdf"}}, []string{"h/x/y"}},
		{"a Capability List at the host's top",
			state.Source{URL: "http://h:8080/capabilitylist.xml"},
			[]state.PathGroup{{Min: "h+8080/d/1", Max: "h+8080/d/2"}}, []string{"h+8080"}},
		{"two hosts", state.Source{URL: "http://h/d/cap.xml"},
			[]state.PathGroup{{Min: "g/x/1", Max: "g/x/2"}, {Min: "h/d/r/1", Max: "h/d/r/2"}}, []string{"g/x", "h/d"}},
		{"names that share a start are not a folder",
			state.Source{URL: "http://o/cap.xml"},
			[]state.PathGroup{{Min: "h/ab/1", Max: "h/abc/2"}}, []string{"h"}},
		{"--map folders whole",
			state.Source{URL: "http://h/d/cap.xml", Selection: state.Selection{Map: []string{"http://h/d/img/=mirror/images"}}},
			[]state.PathGroup{{Min: "h/d/r/1", Max: "h/d/r/2"}, {Min: "mirror/images/a/1.png", Max: "mirror/images/b/2.png"}},
			[]string{"h/d", "mirror/images"}},
		{"a --map to DEST's top", state.Source{URL: "http://h/d/cap.xml", Selection: state.Selection{Map: []string{"http://h/=."}}},
			[]state.PathGroup{{Min: "d/r/1", Max: "d/r/2"}}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sourceFolders(tt.src, tt.groups); !slices.Equal(got, tt.want) {
				t.Errorf("folders %q, want %q", got, tt.want)
			}
		})
	}

	// Sources 1 (h/d), 2 (h/d/mirror, inside 1's), 3 (h/d too: they
	// share it), 4 (the whole DEST).
	d := &destParts{owners: map[string][]int64{"h/d": {1, 3}, "h/d/mirror": {2}}}
	for _, c := range []struct {
		path string
		id   int64
		want bool
	}{
		{"h/d/x", 1, true}, {"h/d/x", 3, true}, {"h/d/sub/x", 1, true}, {"h/d/x", 2, false},
		{"h/d/mirror/x", 1, false}, {"h/d/mirror/a/x", 2, true}, {"h/dd/x", 1, false},
		{"h/x", 1, false}, {"notes.txt", 1, false},
	} {
		if got := d.owns(c.id, c.path); got != c.want {
			t.Errorf("Source %d owns %s: %v", c.id, c.path, got)
		}
	}
	top := &destParts{owners: map[string][]int64{"": {4}, "h/d": {1}}}
	if !top.owns(4, "notes.txt") || !top.owns(4, "g/x") || top.owns(4, "h/d/x") || !top.owns(1, "h/d/x") {
		t.Error("a part at DEST's top")
	}
}

// A bucket's ranges are clipped to the Source's folders: what lies outside
// them is not listed.
func TestClipRanges(t *testing.T) {
	got := clipRanges([]string{"", "h/d/m", "k", ""}, []string{"a", "h/d"})
	want := [][2]string{
		{"a/", "a/\xff"},      // (start, h/d/m] ∩ a
		{"h/d/", "h/d/m"},     // (start, h/d/m] ∩ h/d
		{"h/d/m", "h/d/\xff"}, // (h/d/m, k] ∩ h/d
	}
	if !slices.Equal(got, want) {
		t.Errorf("clipped %q, want %q", got, want)
	}
	if got := clipRanges([]string{"", ""}, []string{""}); !slices.Equal(got, [][2]string{{"", ""}}) {
		t.Errorf("the whole DEST: %q", got)
	}
}

// Two Sources in one DEST: a file in one's folders is not the other's
// business, and a file a resource of another Source owns is never stray,
// even inside the Source's folders (a --map into them).
func TestAuditStrayFilesOfTwoSources(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 60, Seed: 31})
	one, two := srv.URL+"/dataset1/capabilitylist.xml", srv.URL+"/dataset2/capabilitylist.xml"
	dir := t.TempDir()
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
	if res := syncOnce(t, dir, testClient(t), one, PlanOptions{}); !res.OK() {
		t.Fatalf("dataset 1:%s", failures(res))
	}
	// Dataset 2's copies go inside dataset 1's folder.
	mirror := host + "/dataset1/mirror2"
	sel := &state.Selection{Map: []string{srv.URL + "/dataset2/=" + mirror}}
	if res := syncOnce(t, dir, testClient(t), two, PlanOptions{Selection: sel}); !res.OK() {
		t.Fatalf("dataset 2:%s", failures(res))
	}
	for _, p := range []string{host + "/dataset1/stray1.txt", mirror + "/stray2.txt", host + "/dataset2/res/x.png"} {
		write(t, filepath.Join(dir, filepath.FromSlash(p)))
	}
	if rep := auditOnce(t, dir, testClient(t), one); !slices.Equal(rep.Stray, []string{host + "/dataset1/stray1.txt"}) || !slices.Equal(rep.Extra, rep.Stray) {
		t.Errorf("dataset 1: stray %q, extra %q", rep.Stray, rep.Extra)
	}
	if rep := auditOnce(t, dir, testClient(t), two); !slices.Equal(rep.Stray, []string{mirror + "/stray2.txt"}) || rep.Same == 0 {
		t.Errorf("dataset 2: stray %q, same %d", rep.Stray, rep.Same)
	}
	// Dataset 2 mapped into dataset 1's folder itself: the two share it,
	// and dataset 2's copies there, owned by its resources, are never
	// dataset 1's stray files.
	sel = &state.Selection{Map: []string{srv.URL + "/dataset2/=" + host + "/dataset1"}}
	if res := syncOnce(t, dir, testClient(t), two, PlanOptions{Selection: sel, Delete: true}); !res.OK() {
		t.Fatalf("dataset 2 mapped again:%s", failures(res))
	}
	rep := auditOnce(t, dir, testClient(t), one)
	if !slices.Equal(rep.Stray, []string{mirror + "/stray2.txt", host + "/dataset1/stray1.txt"}) {
		t.Errorf("dataset 1 beside dataset 2: stray %q", rep.Stray)
	}
	if rep := auditOnce(t, dir, testClient(t), two); rep.Same == 0 || !slices.Contains(rep.Stray, host+"/dataset1/stray1.txt") {
		t.Errorf("dataset 2 in dataset 1's folder: same %d, stray %q", rep.Same, rep.Stray)
	}
}
