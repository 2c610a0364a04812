package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"rsx/dest/engine"
)

// Counts are written one way everywhere, with thousands separators as
// display.Plural writes them: never "2008 created" beside "2,008
// resources".
func TestCountsHaveThousandsSeparators(t *testing.T) {
	st := newTextStyles(false)
	plan := &engine.Plan{Source: "http://example.org/cap.xml", Document: "http://example.org/rl.xml", Mode: engine.ModeBaseline}
	plan.Summary.Create, plan.Summary.Update, plan.Summary.Delete, plan.Summary.Unchanged, plan.Summary.Excluded = 2008, 1500, 1200, 12345, 3001
	var b bytes.Buffer
	writeSyncPlan(&b, st, plan, "./copy", false)
	writeSyncResult(&b, st, &engine.Result{Plan: plan, Created: 2008, Updated: 1500, Deleted: 1200, Elapsed: time.Second})
	writeDestAuditText(&b, st, &engine.AuditReport{Source: "http://example.org/cap.xml", Same: 2008, Hashed: 4016, Missing: []string{"http://example.org/a"}}, "./copy", "./copy", "http://example.org/cap.xml")
	out := b.String()
	for _, want := range []string{"2,008 to create", "1,500 to update", "1,200 to delete", "12,345 unchanged", "3,001 excluded", "2,008 created", "2,008 same", "4,016 local copies hashed"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`\b\d{4,}\b`).FindAllString(out, -1); len(m) > 0 {
		t.Errorf("counts without separators %v in:\n%s", m, out)
	}
}
