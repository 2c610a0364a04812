package plan

import (
	"context"
	"hash/maphash"
	"slices"
	"strconv"

	"rsx/dest/state"
	"rsx/internal/keyset"
)

// Snapshot plans from a document that lists every resource (a Resource List or
// its index, or a Resource Dump's manifests): Add each entry, then Finish.
// It holds one batch of entries, a bit per row of the state, 16 bytes per URI
// the selection leaves out (to count it once) and a set of the new URIs'
// hashes (to notice a URI listed twice), never the whole document. The set
// moves to a temporary file in Options.TempDir past 65,536 URIs (a byte a
// URI stays in memory, internal/keyset): a plan of a million new resources
// held 40 MB of it (issue 23). Close removes the file.
type Snapshot struct {
	st    State
	opts  Options
	batch []Entry
	uris  []string
	items []Item
	seen  []uint64 // a bit per state id: listed in the snapshot
	nSeen int64    // the bits set in seen
	maxID int64    // the largest id when the plan began
	fresh *keyset.Set
	keys  []keyset.Key // of the batch's new URIs
	had   []bool
	k1    maphash.Seed
	k2    maphash.Seed
	sum   Summary
	excl  excludedOnce // the URIs counted as Excluded
	dups  int
	first string // the first URI listed twice
}

// NewSnapshot starts a snapshot plan.
func NewSnapshot(ctx context.Context, st State, opts Options) (*Snapshot, error) {
	maxID, err := st.MaxID(ctx)
	if err != nil {
		return nil, err
	}
	return &Snapshot{
		st: st, opts: opts, maxID: maxID,
		batch: make([]Entry, 0, state.LookupBatch), uris: make([]string, 0, state.LookupBatch), items: make([]Item, state.LookupBatch),
		seen: make([]uint64, maxID/64+1), fresh: keyset.New(opts.TempDir, "new-uris", 0),
		k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), excl: newExcludedOnce(),
	}, nil
}

// Add plans one entry; decisions are emitted when a batch is full.
func (p *Snapshot) Add(ctx context.Context, e Entry, emit func(Item) error) error {
	if !p.opts.chosen(e.URI, &p.sum) {
		return nil
	}
	if !p.opts.Selection.Selected(e.URI) {
		p.excl.count(e.URI, &p.sum.Excluded)
		return nil
	}
	p.batch = append(p.batch, e)
	if len(p.batch) == cap(p.batch) {
		return p.flush(ctx, emit)
	}
	return nil
}

func (p *Snapshot) flush(ctx context.Context, emit func(Item) error) error {
	if len(p.batch) == 0 {
		return nil
	}
	p.uris = p.uris[:0]
	for i := range p.batch {
		p.uris = append(p.uris, p.batch[i].URI)
	}
	items := p.items[:len(p.batch)]
	clear(items)
	err := p.st.Find(ctx, p.uris, func(i int, k *state.Known) error {
		e := &p.batch[i]
		act, why, touch := compare(e, k)
		items[i] = Item{Action: act, Entry: *e, ID: k.ID, Reason: why, Touch: touch}
		if act == Unchanged {
			items[i].Copy = k.Copy
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.keys = p.keys[:0]
	for i := range items {
		it := &items[i]
		if it.Action == 0 {
			*it = Item{Action: Create, Entry: p.batch[i], Reason: "new"}
		}
		if !p.known(it) {
			p.keys = append(p.keys, keyset.Key{maphash.String(p.k1, it.Entry.URI), maphash.String(p.k2, it.Entry.URI)})
		}
	}
	p.had = slices.Grow(p.had[:0], len(p.keys))[:len(p.keys)]
	if err := p.fresh.Add(ctx, p.keys, p.had); err != nil {
		return err
	}
	k := 0
	for i := range items {
		it := &items[i]
		if p.known(it) {
			if p.listedTwice(it) {
				continue
			}
		} else {
			k++
			if p.had[k-1] {
				p.duplicate(it.Entry.URI)
				continue
			}
		}
		p.sum.count(it)
		if err := emit(*it); err != nil {
			return err
		}
	}
	p.batch = p.batch[:0]
	return nil
}

// known reports whether the item is of a row the state held when the plan
// began: whether it was listed before is a bit per row (listedTwice); the
// others (new resources, and rows an engine recorded since) are told by a
// hash of the URI in the fresh set.
func (p *Snapshot) known(it *Item) bool { return it.ID > 0 && it.ID <= p.maxID }

// listedTwice notes the row of a known item as listed and reports whether
// it was already.
func (p *Snapshot) listedTwice(it *Item) bool {
	w, bit := it.ID/64, uint64(1)<<(it.ID%64)
	if p.seen[w]&bit != 0 {
		p.duplicate(it.Entry.URI)
		return true
	}
	p.seen[w] |= bit
	p.nSeen++
	return false
}

// rowCounter is a State that counts its rows up to an id (state.View).
type rowCounter interface {
	CountUpTo(ctx context.Context, maxID int64) (int64, error)
}

// allSeen reports whether every row the state held when the plan began was
// listed: as many rows up to maxID as distinct rows listed (each of them a
// row up to maxID). A count spares the walk of every id (EachID) when the
// document listed every row, as an intact copy's Resource List does.
func (p *Snapshot) allSeen(ctx context.Context) bool {
	rc, ok := p.st.(rowCounter)
	if !ok {
		return false
	}
	n, err := rc.CountUpTo(ctx, p.maxID)
	return err == nil && n == p.nSeen
}

// Close removes the temporary file of the new URIs, if any. A Snapshot
// that is not finished (an error, an interruption) must be closed too.
func (p *Snapshot) Close() error { return p.fresh.Close() }

func (p *Snapshot) duplicate(uri string) {
	if p.dups == 0 {
		p.first = uri
	}
	p.dups++
}

// Finish plans the last batch, then the resources the state holds that the
// snapshot did not list (Delete, or PendingDelete without Options.Delete;
// those the selection leaves out are only counted as Excluded, and those
// Options.Only does not hold are left alone), and returns
// the summary.
func (p *Snapshot) Finish(ctx context.Context, emit func(Item) error) (Summary, error) {
	if err := p.flush(ctx, emit); err != nil {
		return p.sum, err
	}
	// The rows the snapshot did not list: their ids from the State (in memory
	// for an Index), then their rows, a batch at a time.
	if p.allSeen(ctx) {
		return p.finishSummary(), nil
	}
	var unseen []int64
	err := p.st.EachID(ctx, func(id int64) error {
		if id > p.maxID || p.seen[id/64]&(1<<(id%64)) != 0 {
			return nil // listed, or recorded since the plan began (so listed)
		}
		unseen = append(unseen, id)
		return nil
	})
	if err != nil {
		return p.sum, err
	}
	slices.Sort(unseen)
	err = p.st.FindIDs(ctx, unseen, func(uri string, k *state.Known) error {
		if !p.opts.Only.Has(uri) {
			return nil // counted as not chosen when it was listed
		}
		if !p.opts.Selection.Selected(uri) {
			p.excl.count(uri, &p.sum.Excluded)
			return nil
		}
		it := Item{Action: PendingDelete, Entry: Entry{URI: uri, Length: -1}, ID: k.ID, Reason: "not listed any more"}
		if p.opts.Delete {
			it.Action = Delete
		}
		p.sum.count(&it)
		return emit(it)
	})
	if err != nil {
		return p.sum, err
	}
	return p.finishSummary(), nil
}

// finishSummary is the summary of a finished plan, with the warning of the
// URIs listed twice.
func (p *Snapshot) finishSummary() Summary {
	if p.dups > 0 {
		p.sum.Warnings = append(p.sum.Warnings, strconv.Itoa(p.dups)+" entries list a URI listed before (the first: "+p.first+"); the first entry of each is used")
	}
	return p.sum
}
