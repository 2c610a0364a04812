// Package uitest holds the fakes that the tests of rsx/ui and of
// rsx/ui/pages share: a sync job that plays a plan, a run and a result, the
// fixed reports of an audit and a spot check, and a TimeMap. Only tests
// import it.
package uitest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"rsx/claims"
	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/session"
	"rsx/spotcheck"
)

// SyncJob plays a sync: a plan, a run that waits until released (or
// cancelled), a result.
type SyncJob struct {
	Req        session.SyncRequest
	PlanAnswer *session.SyncPlan // Plan's answer without deletions
	DeletePlan *session.SyncPlan // Plan's answer with deletions (nil: Plan(true))
	PlanErr    error
	Res        *engine.Result
	RetryRes   *engine.Result
	Release    chan struct{} // when not nil, Run waits for it (or for its context)
	UpdatesC   chan session.SyncUpdate

	Mu      sync.Mutex // guards what follows
	Deletes []bool     // the deletions asked of each Plan
	Runs    int
	Closed  bool
}

// NewSyncJob is a job whose plan, run and result are Plan(false) and
// Result(), into /tmp/copy.
func NewSyncJob() *SyncJob {
	return &SyncJob{
		Req:        session.SyncRequest{Dest: "/tmp/copy", Target: "http://example.org/dataset1/resourcelist-1.xml"},
		PlanAnswer: Plan(false),
		Res:        Result(),
		UpdatesC:   make(chan session.SyncUpdate, 1),
	}
}

// The methods of the sync job the sync page drives (session.Sync's).

func (j *SyncJob) Request() session.SyncRequest       { return j.Req }
func (j *SyncJob) Updates() <-chan session.SyncUpdate { return j.UpdatesC }
func (j *SyncJob) CanRetry() bool                     { return j.Res != nil && j.Res.FailedCount > 0 }

// Plan answers PlanAnswer, or Plan(true) when deletions are asked.
func (j *SyncJob) Plan(_ context.Context, del bool) (*session.SyncPlan, error) {
	j.Mu.Lock()
	j.Deletes = append(j.Deletes, del)
	j.Mu.Unlock()
	if j.PlanErr != nil {
		return nil, j.PlanErr
	}
	if del && j.DeletePlan != nil {
		return j.DeletePlan, nil
	}
	if del {
		return Plan(true), nil
	}
	return j.PlanAnswer, nil
}

// Run returns Res, once Release is closed when it is set; cancelled, it
// returns Res stopped ("interrupted").
func (j *SyncJob) Run(ctx context.Context) (*engine.Result, error) {
	j.Mu.Lock()
	j.Runs++
	j.Mu.Unlock()
	if j.Release != nil {
		select {
		case <-j.Release:
		case <-ctx.Done():
			r := *j.Res
			r.Stopped = "interrupted"
			return &r, nil
		}
	}
	return j.Res, nil
}

// Retry returns RetryRes, an error when there is none.
func (j *SyncJob) Retry(ctx context.Context) (*engine.Result, error) {
	if j.RetryRes == nil {
		return nil, errors.New("nothing to retry")
	}
	return j.RetryRes, nil
}

// Close records that the job was closed.
func (j *SyncJob) Close() error {
	j.Mu.Lock()
	j.Closed = true
	j.Mu.Unlock()
	return nil
}

// TimeMap is the TimeMap of http://example.com/res1.txt (at
// http://example.com/timemap/res1.txt): three versions, and a TimeGate.
const TimeMap = `<http://example.com/res1.txt>;rel="original",
<http://example.com/timemap/res1.txt>;rel="self";type="application/link-format",
<http://example.com/timegate/res1.txt>;rel="timegate",
<http://example.com/versions/v1/res1.txt>;rel="first memento";datetime="Sun, 04 Jan 2026 09:00:00 GMT",
<http://example.com/versions/v2/res1.txt>;rel="memento";datetime="Mon, 05 Jan 2026 06:00:00 GMT",
<http://example.com/versions/v3/res1.txt>;rel="last memento";datetime="Mon, 05 Jan 2026 08:45:00 GMT"
`

// Source is the fake Source's Capability List.
const Source = "http://example.org/dataset1/capabilitylist.xml"

// URI is the fake resource i.
func URI(i int) string { return fmt.Sprintf("http://example.org/res/%03d.html", i) }

// Plan is a plan of 3 chosen resources (2 creates, 1 update) and a
// deletion, pending unless del.
func Plan(del bool) *session.SyncPlan {
	p := &engine.Plan{Mode: engine.ModeBaseline, From: engine.FromList, Source: Source, CapabilityList: Source,
		Target: "http://example.org/dataset1/resourcelist-1.xml", Document: "http://example.org/dataset1/resourcelist-index.xml",
		At: time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), Limited: 3, Delete: del, Reconcile: true,
		Summary: engine.Summary{Create: 2, Update: 1, Unchanged: 4, PendingDelete: 1, NotChosen: 37, Bytes: 3671, Checked: 5, Repair: 1},
		Notes:   []string{"limited to 3 chosen resources: the rest of the Source is left as it is, and a full sync is still to be made"},
	}
	items := []engine.Item{
		{Item: plan.Item{Action: plan.Create, Entry: plan.Entry{URI: URI(1), Length: 1037}, Reason: "new"}},
		{Item: plan.Item{Action: plan.Create, Entry: plan.Entry{URI: URI(5), Length: 1185}, Reason: "new"}},
		{Item: plan.Item{Action: plan.Update, Entry: plan.Entry{URI: URI(9), Length: 1449, Digests: state.Digests("md5:00")}, Reason: "the copy example.org/res/009.html is missing"}},
	}
	if del {
		p.Summary.Delete, p.Summary.PendingDelete = 1, 0
		items = append(items, engine.Item{Item: plan.Item{Action: plan.Delete, Entry: plan.Entry{URI: URI(7), Length: -1}, Reason: "not listed any more"}})
	} else {
		items = append(items, engine.Item{Item: plan.Item{Action: plan.PendingDelete, Entry: plan.Entry{URI: URI(7), Length: -1}, Reason: "not listed any more"}})
	}
	return &session.SyncPlan{Plan: p, Dest: "/tmp/copy", Items: items}
}

// Result is the run of Plan(false): 2 created, 1 failed (a md5 mismatch).
func Result() *engine.Result {
	p := Plan(false)
	return &engine.Result{Plan: p.Plan, Created: 2, Updated: 0, Pending: 1, Bytes: 2222, Elapsed: 1500 * time.Millisecond,
		FailedCount: 1, Failed: []engine.Failure{{URL: URI(9), Kind: engine.KindVerify, Err: errors.New("md5: declared 1584abdf…, received 9e107d9d…"),
			Path: "example.org/res/009.html", Rejected: ".rsx/rejected/example.org/res/009.html"}}}
}

// Progress is a run at 120 of 300, with 2 failures and 8 in flight.
func Progress() session.SyncUpdate {
	var inflight []string
	for i := 20; i < 28; i++ {
		inflight = append(inflight, URI(i))
	}
	return session.SyncUpdate{
		Progress: engine.Progress{Phase: engine.PhaseSyncing, Total: 300, Done: 120, Failed: 2, Bytes: 1234567, TotalBytes: 3456789,
			Rate: 45.3, ByteRate: 467000, Elapsed: 3 * time.Second, Remaining: 4 * time.Second, InFlight: inflight},
		Failures: []engine.Failure{
			{URL: URI(11), Kind: engine.KindFetch, Err: errors.New("fetch http://example.org/res/011.html: 404 Not Found"), Status: 404},
			{URL: URI(12), Kind: engine.KindVerify, Err: errors.New("length: declared 1200, received 1187")},
		},
	}
}

// Audit is an audit that finds the copy not in sync: 4 missing, 1
// changed, 2 extra.
func Audit() *engine.AuditReport {
	return &engine.AuditReport{Source: Source, Document: "http://example.org/dataset1/resourcelist-index.xml",
		At: time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), Point: time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC),
		Same: 2, SameURIs: []string{URI(1), URI(5)},
		Missing:     []string{URI(2), URI(3), URI(4), URI(6)},
		Changed:     []string{URI(9)},
		Extra:       []string{URI(41), "stray.txt"},
		Stray:       []string{"stray.txt"},
		Unannounced: []string{URI(9), URI(41)},
		Damaged:     []string{URI(9)},
		NotChosen:   30, Hashed: 3, HashedBytes: 3671, Elapsed: 120 * time.Millisecond,
		Warnings: []string{"the Source's changes are only in a Change Dump, which an audit does not read"}}
}

// Spot is a spot check of 3 resources, one of them mismatched.
func Spot() *spotcheck.Report {
	ok := func(field, declared string) claims.Check {
		return claims.Check{Field: field, Verdict: claims.OK, Declared: declared, Actual: declared}
	}
	res := func(uri string, checks ...claims.Check) claims.EntryResult {
		return claims.EntryResult{Results: []claims.Result{{Target: claims.Target{URL: uri}, Checks: checks}}}
	}
	bad := res(URI(12), ok("status", "2xx"),
		claims.Check{Field: "length", Verdict: claims.Mismatch, Declared: "1200", Actual: "1187 bytes"},
		claims.Check{Field: "md5", Verdict: claims.Mismatch, Declared: "1584abdf8ebdc9802ac0c6a7402c03b6", Actual: "9e107d9d372bb6826bd81d3542a419d6"})
	bad.Results = append(bad.Results, claims.Result{Target: claims.Target{URL: "http://mirror.example.net/res/012.html", Mirror: 1},
		Checks: []claims.Check{ok("status", "2xx"), ok("length", "1200")}})
	return &spotcheck.Report{URL: "http://example.org/dataset1/resourcelist-1.xml", Checked: 3, Selected: 3, OK: 2, Failed: 1, Bytes: 3600,
		Elapsed:    80 * time.Millisecond,
		Mismatched: []spotcheck.Finding{{URL: URI(12), Field: "length"}},
		Counts:     spotcheck.Counts{Mismatched: 1},
		Resources: []spotcheck.Resource{
			{URL: URI(12), Verdict: claims.Mismatch, Result: bad},
			{URL: URI(1), Verdict: claims.OK, Result: res(URI(1), ok("status", "2xx"), ok("length", "1037"), ok("type", "text/html"),
				claims.Check{Field: "lastmod", Verdict: claims.Warning, Declared: "2013-01-02T09:00:00Z", Actual: "2013-01-02T09:00:05Z", Reason: "servers differ"})},
			{URL: URI(5), Verdict: claims.OK, Result: res(URI(5), ok("status", "2xx"), ok("md5", "0f3b8ad1c2e4d5f60718293a4b5c6d7e"))},
		}}
}

// OverPadded are the lines of a page's view, drawn for a terminal w cells
// wide that counts by m, that the page padded or drew to its width but
// made wider than that as m counts: those ending in padding, a border, a
// rule or the ellipsis of a cut. (A row whose content is longer than the page, cut by the root,
// is no such line.) Each is described for a test's error.
func OverPadded(view string, m ansi.Method, w int) []string {
	var out []string
	for n, l := range strings.Split(view, "\n") {
		got := m.StringWidth(l)
		if got <= w {
			continue
		}
		plain := ansi.Strip(l)
		if r, _ := utf8.DecodeLastRuneInString(plain); strings.ContainsRune(" │─╮╯╭╰┤…", r) {
			out = append(out, fmt.Sprintf("line %d, padded or drawn to the width, is %d cells wide, not %d: %q", n+1, got, w, plain))
		}
	}
	return out
}
