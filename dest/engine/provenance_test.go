package engine

import (
	"context"
	"testing"

	"rsx/demo"
	"rsx/dest/state"
)

// Two Sources in one DEST: the documents one Source's runs read are bounded
// by its own quota, and pruning them never drops the other Source's (a
// Source whose documents filled the DEST-wide bound pushed out every other
// Source's history, the oldest runs' first).
func TestRunDocumentsOfOneSourceDoNotEvictAnother(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 100, Seed: 3})
	dir := t.TempDir()
	other := srv.URL + "/dataset2/capabilitylist.xml"
	if res := syncOnce(t, dir, testClient(t), other, PlanOptions{}); !res.OK() {
		t.Fatalf("the other Source's sync: %s", failures(res))
	}
	ctx := context.Background()
	s := openSession(t, dir, testClient(t), Options{})
	otherRun, _, err := s.db.LastRun(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := s.db.RunDocuments(ctx, otherRun.ID)
	if err != nil || len(kept) < 2 {
		t.Fatalf("the other Source's run kept %d documents: %v", len(kept), err)
	}
	// This Source's quota holds none of its documents: each run prunes all
	// of its own.
	s.capture.quota = 1
	target := srv.URL + "/dataset1/capabilitylist.xml"
	for i := range 2 {
		p, err := s.Plan(ctx, target, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(ctx, p)
		p.Close()
		if err != nil || !res.OK() {
			t.Fatalf("run %d: %v%s", i, err, failures(res))
		}
		advance(t, srv.URL, 2)
	}
	r, _, err := s.db.LastRun(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if docs, _ := s.db.RunDocuments(ctx, r.ID); len(docs) != 0 {
		t.Errorf("this Source's run keeps %d documents over its quota", len(docs))
	}
	docs, err := s.db.RunDocuments(ctx, otherRun.ID)
	if err != nil || len(docs) != len(kept) {
		t.Errorf("the other Source's run keeps %d documents of %d: %v", len(docs), len(kept), err)
	}
	if q := newDocCapture(t.TempDir()).quota; q != state.DefaultDocumentBytes {
		t.Errorf("the default quota is %d, want state.DefaultDocumentBytes", q)
	}
}
