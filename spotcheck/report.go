package spotcheck

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"rsx/claims"
	"rsx/model"
)

// Stop says why a run ended before it had checked everything it drew.
type Stop string

const (
	StopBytes       Stop = "byte budget" // Options.MaxTotalBytes was spent
	StopTime        Stop = "time budget" // Options.TimeBudget ran out
	StopInterrupted Stop = "interrupted" // the caller's context ended
)

// Report is what a run found. Lists of findings are in URI order, a
// resource's findings before its mirrors', each in the order of claims.Compare.
type Report struct {
	URL    string // the document the run started from
	Sample int    // resources asked for; 0: every one
	Seed   uint64

	// Lists are the documents read, in URL order.
	Lists []List
	// Listed counts the resources of the lists that the include and
	// exclude patterns let through (and those only Change Lists name):
	// what the sample is drawn from. Excluded counts the others.
	Listed, Excluded int64
	// Selected is how many resources were drawn to be checked (Listed,
	// when every one is); Checked how many were judged before the run
	// ended.
	Selected, Checked int
	// Of those checked: OK (nothing contradicts a claim; warnings allowed),
	// Failed (something does, for the resource or a mirror), Unverifiable
	// (no claim could be compared), and Warned (OK with warnings).
	OK, Failed, Unverifiable, Warned int
	// Changed counts the resources checked against a change recorded after
	// their Resource List's at; Gone those of them expected to be deleted.
	Changed, Gone int

	// The findings, kept here unless Options.Sink received them (Counts
	// counts them either way).
	Mismatched []Finding   // claims that are false
	Warnings   []Finding   // differences servers may have (lastmod), and redirects
	Unchecked  []Unchecked // claims that could not be compared, and why
	// Mirrors are the mirrors checked, or only those that are not ok when
	// Options.OmitOKMirrors is set; MirrorsChecked and MirrorsOK count them all.
	Mirrors                   []Mirror
	MirrorsChecked, MirrorsOK int
	// Counts counts the findings, those kept here or those a Sink received.
	Counts Counts

	// Resources are the resources checked, whole, with
	// Options.KeepResources: the failures first, then by URL.
	Resources []Resource

	Bytes   int64 // resource body bytes read
	Elapsed time.Duration
	// Stopped is why the run ended early: "" when it checked every resource
	// it drew.
	Stopped Stop
}

// Counts counts a run's findings.
type Counts struct {
	Mismatched, Warnings, Unchecked int
	// Mirrors counts the mirrors listed: every one checked, or with
	// Options.OmitOKMirrors (and no Sink) those that are not ok.
	Mirrors int
}

// Complete reports whether every resource drawn was checked.
func (r *Report) Complete() bool { return r.Stopped == "" && r.Checked == r.Selected }

// Wrong reports whether the run found a false claim: a mismatch, or a
// mirror that is not ok.
func (r *Report) Wrong() bool { return r.Counts.Mismatched > 0 || r.MirrorsOK < r.MirrorsChecked }

// keeper hands findings to the Sink, or keeps them in the Report.
type keeper struct {
	r    *Report
	sink Sink
}

// keep counts v in n, then hands it to the Sink with send, or keeps it in
// list when there is no Sink.
func keep[T any](k keeper, n *int, list *[]T, send func(Sink, T), v T) {
	*n++
	if k.sink != nil {
		send(k.sink, v)
		return
	}
	*list = append(*list, v)
}

func (k keeper) mismatch(f Finding) {
	keep(k, &k.r.Counts.Mismatched, &k.r.Mismatched, Sink.Mismatch, f)
}

func (k keeper) warning(f Finding) { keep(k, &k.r.Counts.Warnings, &k.r.Warnings, Sink.Warning, f) }

func (k keeper) unchecked(u Unchecked) {
	keep(k, &k.r.Counts.Unchecked, &k.r.Unchecked, Sink.Unchecked, u)
}

func (k keeper) mirror(m Mirror) { keep(k, &k.r.Counts.Mirrors, &k.r.Mirrors, Sink.Mirror, m) }

// Unread returns the lists that could not be read (a Resource List part
// that is 404, say): their resources were not in the draw.
func (r *Report) Unread() []List {
	var out []List
	for _, l := range r.Lists {
		if l.Err != nil {
			out = append(out, l)
		}
	}
	return out
}

// List is one document read on the way down to the resources.
type List struct {
	URL        string
	Capability model.Capability // as the document declares it
	Index      bool             // a <sitemapindex>
	Entries    int              // entries read
	Err        error            // why it could not be read (to its end)
	// Note says how it was read when that is not what it declares: a part
	// of a Resource List Index that declares another capability is read as
	// a Resource List, as its index says it is.
	Note string
}

// Finding is a claim that is false (Report.Mismatched) or differs where
// servers may differ (Report.Warnings).
type Finding struct {
	URL      string // the resource, as listed (absolute)
	Mirror   string // the mirror it is about; "" for the resource itself
	Field    string // "status", "length", "type", "lastmod", a digest ("md5", "sha-256", …), "content" or "redirect"
	Declared string // the claim ("2xx" for the status, the URL asked for a redirect)
	Actual   string // what was found
	Reason   string // what else to know, "" when nothing
	// Changed: the claim is a Change List's, recorded after the
	// resource's Resource List.
	Changed bool

	order [2]int // mirror number, position of the check
}

// Unchecked is a claim that could not be compared.
type Unchecked struct {
	URL, Mirror, Field string
	Reason             string

	order [2]int
}

// Mirror is the judgement of one mirror of a resource (rel="duplicate").
type Mirror struct {
	URL    string // the resource
	Mirror string // the mirror's URL
	Pri    int    // its pri (model.MaxPri when absent or invalid)
	OK     bool   // nothing it was held to is false

	order int
}

// dropped reports whether a result says nothing about the claims: the run
// ended (or the byte budget ran out) while it was being fetched.
func dropped(er claims.EntryResult) bool {
	for _, r := range er.Results {
		if err := r.Err(); errors.Is(err, claims.ErrBudgetSpent) || errors.Is(err, errStopped) {
			return true
		}
	}
	return false
}

// add counts one resource checked and keeps what it found.
func (r *Report) add(it *item, er claims.EntryResult, omitOKMirrors bool, sink Sink) {
	k := keeper{r, sink}
	r.Checked++
	if it.changed {
		r.Changed++
		if it.gone {
			r.Gone++
		}
	}
	warned := false
	for _, res := range er.Results {
		t := res.Target
		mirror := ""
		if t.Mirror > 0 {
			mirror = t.URL
		}
		status, _ := res.Find("status")
		incomplete := status.Verdict == claims.Mismatch || res.Received.Truncated
		for i, c := range res.Checks {
			f := Finding{URL: it.entry.Loc, Mirror: mirror, Field: c.Field, Declared: c.Declared, Actual: c.Actual,
				Reason: c.Reason, Changed: it.changed, order: [2]int{t.Mirror, i}}
			switch c.Verdict {
			case claims.Mismatch:
				if f.Actual == "" {
					f.Actual = c.Short
				}
				k.mismatch(f)
			case claims.Warning:
				warned = true
				k.warning(f)
			case claims.Unchecked:
				if !incomplete {
					k.unchecked(Unchecked{URL: it.entry.Loc, Mirror: mirror, Field: c.Field, Reason: c.Reason, order: f.order})
				}
			}
		}
		if n := len(res.Received.Redirects); n > 0 && status.Verdict == claims.OK {
			warned = true
			reason := "after 1 redirect"
			if n > 1 {
				reason = fmt.Sprintf("after %d redirects", n)
			}
			k.warning(Finding{URL: it.entry.Loc, Mirror: mirror, Field: "redirect",
				Declared: t.URL, Actual: res.Received.FinalURL, Reason: reason + " (" + redirectStatuses(res) + ")",
				Changed: it.changed, order: [2]int{t.Mirror, len(res.Checks)}})
		}
		if t.Mirror > 0 {
			ok := res.Verdict() != claims.Mismatch
			r.MirrorsChecked++
			if ok {
				r.MirrorsOK++
			}
			if !ok || !omitOKMirrors || sink != nil {
				k.mirror(Mirror{URL: it.entry.Loc, Mirror: t.URL, Pri: t.Pri, OK: ok, order: t.Mirror})
			}
		}
	}
	switch {
	case er.Verdict() == claims.Mismatch:
		r.Failed++
	case er.Primary().NothingChecked():
		r.Unverifiable++
	default:
		r.OK++
		if warned {
			r.Warned++
		}
	}
}

// addUnfetchable counts a resource whose loc cannot be fetched: nothing
// could be compared, and its loc says why.
func (r *Report) addUnfetchable(it *item, sink Sink) {
	r.Checked++
	r.Unverifiable++
	if it.changed {
		r.Changed++
	}
	keeper{r, sink}.unchecked(Unchecked{URL: it.entry.Loc, Field: "loc", Reason: it.locProblem})
}

func redirectStatuses(res claims.Result) string {
	var parts []string
	for _, rd := range res.Received.Redirects {
		parts = append(parts, fmt.Sprint(rd.Status))
	}
	return strings.Join(parts, ", ")
}

// sortFindings puts every list in URI order, then mirror, then check.
func (r *Report) sortFindings() {
	less := func(u1, u2 string, o1, o2 [2]int) bool {
		if u1 != u2 {
			return u1 < u2
		}
		if o1[0] != o2[0] {
			return o1[0] < o2[0]
		}
		return o1[1] < o2[1]
	}
	for _, fs := range [][]Finding{r.Mismatched, r.Warnings} {
		sort.SliceStable(fs, func(i, j int) bool { return less(fs[i].URL, fs[j].URL, fs[i].order, fs[j].order) })
	}
	sort.SliceStable(r.Unchecked, func(i, j int) bool {
		return less(r.Unchecked[i].URL, r.Unchecked[j].URL, r.Unchecked[i].order, r.Unchecked[j].order)
	})
	sort.SliceStable(r.Mirrors, func(i, j int) bool {
		return less(r.Mirrors[i].URL, r.Mirrors[j].URL, [2]int{r.Mirrors[i].order}, [2]int{r.Mirrors[j].order})
	})
	sort.SliceStable(r.Lists, func(i, j int) bool { return r.Lists[i].URL < r.Lists[j].URL })
}
