package session

import (
	"context"
	"strings"
	"testing"

	"rsx/demo"
)

// The history behind the coverage view, from every kind of document it may
// be opened on: the live Change List Index, one of its parts, the Change List
// Archive; and a clear refusal for a Resource List.
func TestHistoryFromEveryDocument(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 120, ListSize: 40, PackageSize: 30})
	base := srv.URL + "/dataset1/"
	for _, target := range []string{"changelist.xml", "changelist/0002.xml", "changelist-archive.xml"} {
		h, err := s.History(context.Background(), base+target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if h.Live == nil || h.Live.Base() != base+"changelist.xml" {
			t.Errorf("%s: live document %v, want the Change List Index", target, h.Live)
		}
		if len(h.LivePeriods) < 2 || len(h.ArchivedPeriods) < 1 || len(h.Archive) != 1 {
			t.Errorf("%s: %d live periods, %d archived, %d archive documents", target, len(h.LivePeriods), len(h.ArchivedPeriods), len(h.Archive))
		}
		periods, segs := h.Coverage()
		if len(periods) != len(h.LivePeriods)+len(h.ArchivedPeriods) || len(segs) == 0 {
			t.Errorf("%s: coverage of %d periods in %d segments", target, len(periods), len(segs))
		}
		for _, sg := range segs {
			if sg.Hole() {
				t.Errorf("%s: the demo's history has a hole at %v", target, sg.From)
			}
		}
	}
	_, err := s.History(context.Background(), base+"resourcelist.xml")
	if err == nil || !strings.Contains(err.Error(), "is a Resource List") {
		t.Errorf("a Resource List: %v", err)
	}
	_, err = s.History(context.Background(), srv.URL+"/nothing.xml")
	if err == nil || !strings.Contains(err.Error(), "nothing.xml") {
		t.Errorf("a missing document: %v", err)
	}
}
