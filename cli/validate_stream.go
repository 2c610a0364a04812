package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"hash/maphash"
	"math"
	"slices"

	"rsx/crawl"
	"rsx/internal/spool"
	"rsx/model"
)

// recursiveReports are the reports of rsx validate --recursive, one per
// document, made as crawl.Graph.WalkStream hands the documents over and put
// back in document order through a spool: the reports of an index of a
// million parts wait in a temporary file, not in memory (issue 23).
//
// A document reached more than once (listed twice, a cycle, or from two
// targets) is reported at its first place in document order; the
// cross-document problems found at its other places are added to that
// report when it is printed (amend), as the whole-tree walk added them.
type recursiveReports struct {
	list     *spool.List[reportRecord]
	seeds    [2]maphash.Seed
	reported map[docKey]struct{}
	amend    map[docKey][]amendment
	// next is the place in document order of the next target's first
	// document (the places of a walk's nodes follow it).
	next   int
	totals validateTotals
	first  int   // the place of totals.firstUnread
	err    error // a report that could not be kept
}

// docKey is the 128-bit hash of a document's normalised URL.
type docKey [2]uint64

// amendment is the cross-document problems found at another place (seq)
// of a document already reported.
type amendment struct {
	seq      int
	problems []model.Problem
}

// reportRecord is a report as kept in the spool.
type reportRecord struct {
	Seq      int
	Key      docKey
	Touched  bool // cross-document problems were added: sort the problems by entry
	URL      string
	FinalURL string
	Title    string
	Cap      string
	Index    bool
	Entries  int
	Bytes    int64
	Problems []model.Problem
	Errors   int
	Warnings int
	Err      *string
	NotRS    bool
}

func newRecursiveReports(dir string) *recursiveReports {
	enc := func(b []byte, r *reportRecord) []byte {
		j, err := json.Marshal(r)
		if err != nil { // a record of strings and numbers: cannot happen
			panic(err)
		}
		return append(b, j...)
	}
	dec := func(b []byte, r *reportRecord) error { return json.Unmarshal(b, r) }
	return &recursiveReports{
		list:     spool.NewList(dir, "reports", 4096, enc, dec, func(a, b *reportRecord) int { return cmp.Compare(a.Seq, b.Seq) }),
		seeds:    [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		reported: map[docKey]struct{}{},
		amend:    map[docKey][]amendment{},
		first:    math.MaxInt,
	}
}

func (o *recursiveReports) key(url string) docKey {
	u := crawl.NormalizeURL(url)
	return docKey{maphash.String(o.seeds[0], u), maphash.String(o.seeds[1], u)}
}

// node takes one node of a walk of target.
func (o *recursiveReports) node(n *crawl.Node, target string) {
	if n.Document == nil {
		return
	}
	k := o.key(n.URL)
	seq := o.next + n.Seq
	_, done := o.reported[k]
	first := !done
	if first && n.Repeat {
		// A repeat of a document above it (a cycle): that one comes first
		// in document order, though it is handed over after.
		for a := n.Parent; a != nil; a = a.Parent {
			if a.Document != nil && o.key(a.URL) == k {
				first = false
				break
			}
		}
	}
	if !first {
		if len(n.Cross) > 0 {
			o.amend[k] = append(o.amend[k], amendment{seq: seq, problems: slices.Clone(n.Cross)})
			e, w := model.CountProblems(n.Cross)
			o.totals.errors += e
			o.totals.warnings += w
		}
		return
	}
	if n.Parent != nil && n.Header == nil {
		// Could not be fetched: reported on the listing document.
		return
	}
	r := nodeReport(n)
	if n.Parent == nil {
		r.URL = target
	}
	for _, p := range n.Cross {
		r.addProblem(p)
	}
	o.reported[k] = struct{}{}
	o.addKeyed(seq, k, len(n.Cross) > 0, r)
}

// add keeps a report that no other place amends.
func (o *recursiveReports) add(seq int, touched bool, r docReport) {
	o.addKeyed(seq, docKey{}, touched, r)
}

func (o *recursiveReports) addKeyed(seq int, k docKey, touched bool, r docReport) {
	o.totals.errors += r.Errors
	o.totals.warnings += r.Warnings
	rec := reportRecord{Seq: seq, Key: k, Touched: touched, URL: r.URL, FinalURL: r.FinalURL, Title: r.Title, Cap: r.Capability,
		Index: r.Index, Entries: r.Entries, Bytes: r.Bytes, Problems: r.Problems, Errors: r.Errors, Warnings: r.Warnings}
	if r.Err != nil {
		msg := r.Err.Error()
		rec.Err, rec.NotRS = &msg, errors.Is(r.Err, errNotResourceSync)
		o.totals.unread++
		if seq < o.first {
			o.first, o.totals.firstUnread = seq, "validate "+r.URL+": "+msg
		}
	}
	o.list.Add(rec)
	if err := o.list.Err(); err != nil && o.err == nil {
		o.err = err
	}
}

// each calls fn with every report in document order, the problems found
// at a document's other places added.
func (o *recursiveReports) each(fn func(*docReport) error) error {
	return o.list.Each(func(rec reportRecord) error {
		r := docReport{URL: rec.URL, FinalURL: rec.FinalURL, Title: rec.Title, Capability: rec.Cap, Index: rec.Index,
			Entries: rec.Entries, Bytes: rec.Bytes, Problems: slices.Clone(rec.Problems), Errors: rec.Errors, Warnings: rec.Warnings}
		if rec.Err != nil {
			r.Err = savedError{msg: *rec.Err, notRS: rec.NotRS}
		}
		touched := rec.Touched
		if as := o.amend[rec.Key]; len(as) > 0 && rec.Key != (docKey{}) {
			slices.SortStableFunc(as, func(a, b amendment) int { return cmp.Compare(a.seq, b.seq) })
			for _, a := range as {
				for _, p := range a.problems {
					r.addProblem(p)
				}
			}
			touched = true
		}
		if touched {
			slices.SortStableFunc(r.Problems, func(a, b model.Problem) int { return cmp.Compare(a.Entry, b.Entry) })
		}
		return fn(&r)
	})
}

func (o *recursiveReports) close() { o.list.Close() }

// savedError is a report's error read back from the spool: its words, and
// whether it was errNotResourceSync.
type savedError struct {
	msg   string
	notRS bool
}

func (e savedError) Error() string { return e.msg }

func (e savedError) Is(target error) bool { return e.notRS && target == errNotResourceSync }
