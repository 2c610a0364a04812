package engine

import (
	"context"
	"strings"
	"testing"

	"rsx/dest/plan"
)

// A plan's decisions name the file each concerns: where a create or an
// update writes, what a deletion removes (its path and length read from
// the state), only those of the actions asked for.
func TestPlanDecisions(t *testing.T) {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	a, b, c, d := []byte("aaa"), []byte("bbbb"), []byte("ccccc"), []byte("dd")
	for p, body := range map[string][]byte{"/r/a": a, "/r/b": b, "/r/c": c, "/r/d": d} {
		f.setRes(p, body)
	}
	const lm = "2030-01-01T09:00:00Z"
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", rlEntry("/r/a", a, lm), rlEntry("/r/b", b, lm), rlEntry("/r/c", c, lm)))
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	b2 := []byte("BBBBBB")
	f.setRes("/r/b", b2)
	f.setDoc("/rl.xml", resourceList("2030-01-02T10:00:00Z", rlEntry("/r/a", a, lm), rlEntry("/r/b", b2, "2030-01-02T09:00:00Z"), rlEntry("/r/d", d, lm)))
	s := openSession(t, dir, testClient(t), Options{})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{Mode: ModeBaseline, Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := map[string]Decision{}
	if err := p.Decisions(context.Background(), func(d Decision) error {
		got[d.Action.String()+" "+d.URI[strings.LastIndex(d.URI, "/")+1:]] = d
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cr, up, del := got["create d"], got["update b"], got["delete c"]
	if len(got) != 3 || !strings.HasSuffix(cr.Path, "/r/d") || cr.Length != 2 || !strings.HasSuffix(up.Path, "/r/b") || up.Length != 6 || up.Reason == "" ||
		!strings.HasSuffix(del.Path, "/r/c") || del.Length != 5 {
		t.Errorf("decisions: %+v", got)
	}
	n := 0
	p.Decisions(context.Background(), func(d Decision) error {
		if d.Action != plan.Delete {
			t.Errorf("asked for deletions, got %+v", d)
		}
		n++
		return nil
	}, plan.Delete)
	if n != 1 {
		t.Errorf("%d deletions", n)
	}
}
