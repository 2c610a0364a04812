package spotcheck

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rsx/model"
)

// item is one resource to check: the claims that must hold for it and
// where it was listed.
type item struct {
	rank  rank
	entry model.Entry // a detached copy: Loc absolute, duplicate links only
	// gone: a Change List records its deletion after its Resource List's
	// at (or, for a resource only Change Lists name, last): a 404 or 410
	// must be found.
	gone bool
	// changed: the claims are those of a change recorded after the Resource
	// List's at, not the Resource List's own.
	changed bool
	// locProblem says why the loc cannot be fetched; "" when it can.
	locProblem string
}

func itemOfChange(r rank, c *change) *item {
	return &item{rank: r, entry: c.entry, gone: c.entry.MD.Change == model.ChangeDeleted, changed: true}
}

// change is the latest change a Change List records for one resource.
type change struct {
	entry model.Entry // detached
	when  time.Time
	list  string
	index int
	seen  atomic.Bool // a Resource List lists the resource
}

// changeSet holds the latest change of every resource the Change Lists
// name. It is filled while the Change Lists are read, then only read
// (lookup) while the Resource Lists stream past.
type changeSet struct {
	mu      sync.Mutex
	byLoc   map[string]*change
	undated int // changes with neither a valid datetime nor a lastmod
}

func newChangeSet() *changeSet { return &changeSet{byLoc: map[string]*change{}} }

// changeTime is when a change happened: its datetime, else (in documents of
// the drafts) its lastmod.
func changeTime(e *model.Entry) (time.Time, bool) {
	switch {
	case e.MD.Datetime.OK:
		return e.MD.Datetime.Time, true
	case e.Lastmod.OK:
		return e.Lastmod.Time, true
	}
	return time.Time{}, false
}

// add records one Change List entry of resource loc (as written); the latest
// by datetime wins, whatever the order of the lists and of their entries
// (a tie goes to the later place, list URL then position).
func (cs *changeSet) add(e *model.Entry, loc, list string) {
	when, ok := changeTime(e)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if !ok {
		cs.undated++
		return
	}
	old := cs.byLoc[loc]
	if old != nil {
		switch {
		case when.Before(old.when):
			return
		case when.Equal(old.when) && (list < old.list || list == old.list && e.Index < old.index):
			return
		}
	}
	c := &change{entry: detach(e, loc), when: when, list: strings.Clone(list), index: e.Index}
	cs.byLoc[c.entry.Loc] = c
}

func (cs *changeSet) len() int { return len(cs.byLoc) }

// lookup returns the change whose claims hold for resource loc, listed in a
// Resource List of time at with lastmod: the latest change when it is after
// at (after lastmod when at is unknown; any change when both are). It marks
// loc as listed. Safe for concurrent use once the Change Lists are read.
func (cs *changeSet) lookup(loc string, at, lastmod model.Datetime) *change {
	if len(cs.byLoc) == 0 {
		return nil
	}
	c := cs.byLoc[loc]
	if c == nil {
		return nil
	}
	c.seen.Store(true)
	var since time.Time
	switch {
	case at.OK:
		since = at.Time
	case lastmod.OK:
		since = lastmod.Time
	}
	if !c.when.After(since) {
		return nil
	}
	return c
}

// unlisted returns, in URI order, the changes of resources no Resource List
// listed that happened after since (every one when since is zero): resources
// created (or deleted) after the lists were made, or, without Resource
// Lists, every resource the Change Lists name.
func (cs *changeSet) unlisted(since time.Time) []*change {
	var out []*change
	for _, c := range cs.byLoc {
		if !c.seen.Load() && c.when.After(since) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].entry.Loc < out[j].entry.Loc })
	return out
}

// detach copies what a check needs of e, with loc as its absolute URI, so
// that nothing refers to the decoder's buffers: a kept entry would keep a
// slab of tens of KiB alive.
func detach(e *model.Entry, loc string) model.Entry {
	out := model.Entry{Index: e.Index, Line: e.Line, Loc: strings.Clone(loc), HasLoc: true, Lastmod: cloneDatetime(e.Lastmod)}
	md := &e.MD
	out.MD = model.Metadata{
		Present: md.Present, Change: md.Change, Datetime: cloneDatetime(md.Datetime),
		Hash: cloneHashes(md.Hash), HashRaw: strings.Clone(md.HashRaw),
		Length: md.Length, LengthRaw: strings.Clone(md.LengthRaw), LengthOK: md.LengthOK,
		Type: strings.Clone(md.Type),
	}
	for i := range e.Links {
		l := &e.Links[i]
		if !model.HasRel(l.Rel, "duplicate") {
			continue
		}
		out.Links = append(out.Links, model.Link{
			Rel: strings.Clone(l.Rel), Href: strings.Clone(l.Href), HasRel: l.HasRel, HasHref: l.HasHref,
			Pri: l.Pri, PriRaw: strings.Clone(l.PriRaw), PriOK: l.PriOK,
			Type:   strings.Clone(l.Type),
			Length: l.Length, LengthRaw: strings.Clone(l.LengthRaw), LengthOK: l.LengthOK,
			Hash: cloneHashes(l.Hash), HashRaw: strings.Clone(l.HashRaw),
			Modified: cloneDatetime(l.Modified),
		})
	}
	return out
}

func cloneDatetime(d model.Datetime) model.Datetime {
	d.Raw, d.Fraction = strings.Clone(d.Raw), strings.Clone(d.Fraction)
	return d
}

func cloneHashes(hl model.HashList) model.HashList {
	if hl == nil {
		return nil
	}
	out := make(model.HashList, len(hl))
	for i, h := range hl {
		out[i] = model.Hash{
			Alg: strings.Clone(h.Alg), AlgRaw: strings.Clone(h.AlgRaw), Value: strings.Clone(h.Value),
			Digest: append([]byte(nil), h.Digest...), Encoding: h.Encoding,
		}
		if h.Digest == nil {
			out[i].Digest = nil
		}
	}
	return out
}
