package plan

import (
	"context"
	"strings"
	"testing"
	"time"

	"rsx/dest/state"
	"rsx/model"
)

// A datetime that cannot be true (after the list's until, or in the future)
// neither orders a resource's changes nor is recorded; one before the list's
// from is only reported.
func TestChangesSuspectDatetimes(t *testing.T) {
	now := t0(600)
	for _, tc := range []struct {
		name        string
		from, until time.Time
		bogus       time.Time // the datetime of the first change of a
		suspect     int
		want        string // the change of a decided: the last one's datetime, or the bogus one's
		warning     string
	}{
		{"fine", t0(0), t0(60), t0(10), 0, "real", ""},
		{"in the future", t0(0), time.Time{}, now.Add(time.Hour), 1, "real", "in the future"},
		{"within the clock's allowance", t0(0), time.Time{}, now.Add(FutureAllowance - time.Second), 0, "bogus", ""},
		{"after until", t0(0), t0(60), t0(90), 1, "real", "after the list's until"},
		{"before from", t0(30), t0(60), t0(10), 1, "real", "before its from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, src := newState(t)
			chg := NewChanges(ChangesOptions{Now: now, TempDir: t.TempDir()})
			defer chg.Close()
			if err := chg.BeginList(ListInfo{URL: u("cl1.xml"), Kind: "changelist", From: tc.from, Until: tc.until}); err != nil {
				t.Fatal(err)
			}
			chg.Add(Entry{URI: u("a"), Change: model.ChangeUpdated, Datetime: tc.bogus, Digests: "md5:bbbb", Length: 1})
			res, err := chg.EndList()
			if err != nil {
				t.Fatal(err)
			}
			if res.Suspect != tc.suspect {
				t.Errorf("suspect %d, want %d", res.Suspect, tc.suspect)
			}
			// A later list has the real change, dated after the first list.
			chg.BeginList(ListInfo{URL: u("cl2.xml"), Kind: "changelist", From: t0(60)})
			chg.Add(Entry{URI: u("a"), Change: model.ChangeUpdated, Datetime: t0(70), Digests: "md5:rrrr", Length: 1})
			if _, err := chg.EndList(); err != nil {
				t.Fatal(err)
			}
			var c collected
			sum, err := chg.Finish(context.Background(), db.View(src.ID), c.emit)
			if err != nil {
				t.Fatal(err)
			}
			got := c.byURI[u("a")]
			want := map[string]string{"real": "md5:rrrr", "bogus": "md5:bbbb"}[tc.want]
			if string(got.Entry.Digests) != want {
				t.Errorf("decided %+v, want the change with %s", got.Entry, want)
			}
			if sum.Suspect != tc.suspect {
				t.Errorf("summary suspect %d", sum.Suspect)
			}
			warned := strings.Join(sum.Warnings, "\n")
			if tc.warning == "" && warned != "" || tc.warning != "" && (!strings.Contains(warned, tc.warning) || !strings.Contains(warned, model.FormatDatetime(tc.bogus))) {
				t.Errorf("warnings %q, want one with %q", sum.Warnings, tc.warning)
			}
		})
	}
}

// A resource whose recorded change datetime is in the future (a copy pinned
// before the rule) takes a real change later.
func TestChangesPinnedRowTakesRealChanges(t *testing.T) {
	now := t0(600)
	db, src := newState(t)
	put(t, db, src, state.Resource{URI: u("a"), Length: 1, Digests: "md5:bbbb", ChangeDatetime: now.AddDate(70, 0, 0)})
	chg := NewChanges(ChangesOptions{Now: now, TempDir: t.TempDir()})
	defer chg.Close()
	chg.BeginList(ListInfo{URL: u("cl.xml"), Kind: "changelist", From: t0(0)})
	chg.Add(Entry{URI: u("a"), Change: model.ChangeUpdated, Datetime: t0(70), Digests: "md5:rrrr", Length: 1})
	if _, err := chg.EndList(); err != nil {
		t.Fatal(err)
	}
	var c collected
	if _, err := chg.Finish(context.Background(), db.View(src.ID), c.emit); err != nil {
		t.Fatal(err)
	}
	if it := c.byURI[u("a")]; it.Action != Update {
		t.Errorf("decided %v (%s), want an update", it.Action, it.Reason)
	}
}
