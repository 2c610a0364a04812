package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"rsx/dest/store"
)

// An incremental run's cost follows its changes, not the size of the copy
// (issue 27): a run of 2,150 changes against a copy of 20,000 resources
// reads nothing in proportion to the copy (no count of its rows, no load
// of its paths or of its Index), where a run of as many against a copy of
// 4,000 still loads the paths (more claims than a fifth of the rows: one
// read of them costs less than the queries of the claims).
func TestIncrementalReadsItsChangesOnly(t *testing.T) {
	for _, tc := range []struct {
		rows  int
		scans bool
	}{
		{rows: 20000, scans: false},
		{rows: 4000, scans: true},
	} {
		t.Run(fmt.Sprintf("rows-%d", tc.rows), func(t *testing.T) {
			ctx := context.Background()
			src := newIncrSource(t, tc.rows)
			src.updates, src.creates, src.deletes = 1800, 300, 50
			dir := filepath.Join(t.TempDir(), "copy")
			src.buildState(t, dir)
			src.publishNext()
			st, err := store.OpenDir(dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s, err := Open(ctx, st, testClient(t), Options{Now: fixtureClock})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			p, err := s.Plan(ctx, src.url("/cap.xml"), PlanOptions{Delete: true})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			res, err := s.Run(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK() || p.Mode != ModeIncremental || res.Created != 300 || res.Updated != 1800 || res.Deleted != 50 {
				t.Fatalf("mode %s: created %d, updated %d, deleted %d: %s", p.Mode, res.Created, res.Updated, res.Deleted, failures(res))
			}
			switch n := s.DB().Scans(); {
			case n > 0 && !tc.scans:
				t.Errorf("the plan and the run read every row of the state (%d times): their cost grows with the copy", n)
			case n == 0 && tc.scans:
				t.Errorf("the run did not load the paths of a copy of %d resources for %d claims", tc.rows, 2100)
			}
		})
	}
}
