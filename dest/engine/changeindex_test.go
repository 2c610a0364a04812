package engine

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

// A Change List Index planned from its spools (a few lists in memory at a
// time) gives the plan it gives in memory: an index in no order, some of
// its entries without from (their lists' own headers say it), the last
// list open. The lists read, their records, the items and the copy's point
// are the same.
func TestChangeIndexSpooledPlanIsTheSame(t *testing.T) {
	const parts = 700
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(k int) string { return model.FormatDatetime(from.Add(time.Duration(k) * time.Minute)) }
	order := rand.New(rand.NewPCG(7, 7)).Perm(parts)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bw := bufio.NewWriter(w)
		defer bw.Flush()
		base := "http://" + r.Host
		until := func(k int) string {
			if k == parts-1 {
				return ""
			}
			return ` until="` + at(k+1) + `"`
		}
		switch r.URL.Path {
		case "/cap.xml":
			fmt.Fprintf(bw, `<?xml version="1.0"?><urlset %s><rs:md capability="capabilitylist"/>`+
				`<url><loc>%s/rl.xml</loc><rs:md capability="resourcelist"/></url><url><loc>%s/cl.xml</loc><rs:md capability="changelist"/></url></urlset>`, ns, base, base)
		case "/rl.xml":
			fmt.Fprintf(bw, `<?xml version="1.0"?><urlset %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist" at="%s"/></urlset>`, ns, base, at(0))
		case "/cl.xml":
			fmt.Fprintf(bw, `<?xml version="1.0"?><sitemapindex %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="changelist" from="%s"/>`+"\n", ns, base, at(0))
			for _, k := range order {
				if k%20 == 3 {
					fmt.Fprintf(bw, "<sitemap><loc>%s/cl/%d.xml</loc></sitemap>\n", base, k)
					continue
				}
				fmt.Fprintf(bw, "<sitemap><loc>%s/cl/%d.xml</loc><rs:md from=\"%s\"%s/></sitemap>\n", base, k, at(k), until(k))
			}
			fmt.Fprint(bw, "</sitemapindex>\n")
		default:
			var k int
			if _, err := fmt.Sscanf(r.URL.Path, "/cl/%d.xml", &k); err != nil || k < 0 || k >= parts {
				http.NotFound(w, r)
				return
			}
			change := "updated"
			if k%7 == 0 {
				change = "deleted"
			}
			fmt.Fprintf(bw, `<?xml version="1.0"?><urlset %s><rs:ln rel="up" href="%s/cap.xml"/><rs:ln rel="index" href="%s/cl.xml"/><rs:md capability="changelist" from="%s"%s/>`+
				`<url><loc>%s/r/%d</loc><rs:md change="%s" datetime="%s" hash="md5:%032x" length="%d"/></url></urlset>`,
				ns, base, base, at(k), until(k), base, k%97, change, at(k), k, 1000+k)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), srv.URL+"/cap.xml", PlanOptions{}); !res.OK() {
		t.Fatalf("the empty baseline: %s", failures(res))
	}
	type planOf struct {
		lists   []ListRead
		records []state.ChangeList
		items   []Item
		sum     Summary
		point   time.Time
		notes   []string
		warns   []string
	}
	plan := func(inMemory int) planOf {
		st, err := store.OpenDir(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		s, err := Open(context.Background(), st, testClient(t), Options{Now: fixtureClock, listsInMemory: inMemory})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		p, err := s.Plan(context.Background(), srv.URL+"/cap.xml", PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		var out planOf
		out.sum, out.point, out.notes, out.warns = p.Summary, p.newPoint, p.Notes, p.Warnings
		if err := p.EachList(func(l ListRead) error { out.lists = append(out.lists, l); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := p.eachRecord(func(c state.ChangeList) error {
			c.ProcessedAt = time.Time{}
			out.records = append(out.records, c)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := p.Items(func(it Item) error { out.items = append(out.items, it); return nil }); err != nil {
			t.Fatal(err)
		}
		if p.Mode != ModeIncremental || p.ListCount() != parts || len(out.lists) != parts || len(out.records) != parts {
			t.Fatalf("a plan of %s, %d lists read (%d given, %d records); want an incremental one of %d", p.Mode, p.ListCount(), len(out.lists), len(out.records), parts)
		}
		return out
	}
	whole, spooled := plan(0), plan(64)
	if !reflect.DeepEqual(whole, spooled) {
		for i := range whole.lists {
			if whole.lists[i] != spooled.lists[i] {
				t.Errorf("list %d: %+v in memory, %+v spooled", i, whole.lists[i], spooled.lists[i])
				break
			}
		}
		t.Errorf("the plan differs once spooled: summary %+v and %+v, point %s and %s, %d and %d items",
			whole.sum, spooled.sum, whole.point, spooled.point, len(whole.items), len(spooled.items))
	}
	// In order of from, whatever the index's order.
	for i := 1; i < len(whole.lists); i++ {
		if whole.lists[i].From.Before(whole.lists[i-1].From) {
			t.Fatalf("list %d (%s) read after a later one", i, whole.lists[i].URL)
		}
	}
	if want := from.Add((parts - 1) * time.Minute); !whole.point.Equal(want) {
		t.Errorf("the copy's point would be %s, want the last closed list's until, %s", whole.point, want)
	}
}
