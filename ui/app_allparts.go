package ui

import (
	"context"
	"fmt"
	"sort"
	"sync"

	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/display"
	"rsx/fetch"
	"rsx/model"
	"rsx/session"
)

// The view of all parts of an index (a): every part's entries in one lean
// table, in part order — part 1's entries, then part 2's … — whatever order
// the parts' downloads finish in. Parts load a few at a time, each on a
// goroutine of its own into a lean table of its own; the UI goroutine copies
// the rows of the part whose turn it is as they arrive (EntryTable.AppendRows)
// and keeps the tables of the parts that got ahead until their turn. No part
// starts more than partsAhead parts after the one being joined, so that what
// waits for its turn stays bounded when an early part is slow.

// partsAhead is how many parts past the one being joined may load, for
// each part loaded at once.
const partsAhead = 2

// combinedLoad is the state of a view of all parts while they load.
type combinedLoad struct {
	head   int                // the part whose rows are being joined
	copied int                // rows of the head part joined so far
	ahead  map[int]*partState // parts that sent something, the head included
	window *partWindow
}

// partState is what arrived of one part.
type partState struct {
	rows *model.EntryTable // the part's rows so far (a snapshot of its table)
	done *session.LoadResult
}

// partWindow lets the loader start part p only once p < head+ahead; the UI
// goroutine moves head on, without waiting.
type partWindow struct {
	mu     sync.Mutex
	cond   *sync.Cond
	head   int
	ahead  int
	closed bool
}

func newPartWindow(ahead int) *partWindow {
	w := &partWindow{ahead: max(ahead, 1)}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// advance records that parts before head are joined.
func (w *partWindow) advance(head int) {
	w.mu.Lock()
	w.head = head
	w.mu.Unlock()
	w.cond.Broadcast()
}

// close wakes the loader for good (the load ended or was cancelled).
func (w *partWindow) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cond.Broadcast()
}

// wait blocks until part p may start; false once the window is closed.
func (w *partWindow) wait(p int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.closed && p >= w.head+w.ahead {
		w.cond.Wait()
	}
	return !w.closed
}

// partSink fills one part's own table on its loader's goroutine and sends
// the UI a snapshot of it after each batch.
type partSink struct {
	ctx  context.Context
	ch   chan<- loadMsg
	doc  *document
	gen  int
	part int
	rows *model.EntryTable
}

func (s *partSink) send(m loadMsg) {
	m.doc, m.gen, m.part, m.progress = s.doc, s.gen, s.part, -1
	select {
	case s.ch <- m:
	case <-s.ctx.Done():
	}
}

func (s *partSink) Started(string, int64, *fetch.Exchange) {}
func (s *partSink) Header(model.Header)                    {}
func (s *partSink) Progress(int64)                         {}

func (s *partSink) Entries(b []model.Entry) {
	for i := range b {
		s.rows.Append(&b[i])
	}
	s.send(loadMsg{rows: s.rows.Snapshot()})
}

func (s *partSink) Done(r session.LoadResult) {
	r.Raw, r.Header = nil, nil // the view keeps neither of a part
	s.send(loadMsg{rows: s.rows, done: &r})
}

// startCombinedLoad loads every part of an index into d, a few at a time.
// The parts are links of the index: each is held to Backend.FollowLink,
// and one that may not be followed fails as a part.
func (a *App) startCombinedLoad(d *document) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	workers := max(a.opts.PartConcurrency, 1)
	win := newPartWindow(workers * partsAhead)
	stop := context.AfterFunc(ctx, win.close)
	d.cancel = func() { cancel(); stop(); win.close() }
	d.loading, d.started = true, a.c.Clock()
	d.combined = &combinedLoad{ahead: map[int]*partState{}, window: win}
	d.partStart = []int32{0}
	ch := make(chan loadMsg, 8)
	b, parts, index, gen, lean := a.backend, d.parts, d.base(), d.gen, d.entries.Lean()
	run := func() tea.Msg {
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(workers, len(parts)) {
			wg.Go(func() {
				for p := range next {
					rows := model.NewLeanEntryTable()
					if !lean {
						rows = model.NewEntryTable()
					}
					sink := &partSink{ctx: ctx, ch: ch, doc: d, gen: gen, part: p, rows: rows}
					if err := b.FollowLink(index, parts[p]); err != nil {
						sink.Done(session.LoadResult{FinalURL: parts[p], Err: err})
						continue
					}
					_ = b.LoadDocument(ctx, parts[p], sink)
				}
			})
		}
		for p := range parts {
			if !win.wait(p) {
				break
			}
			select {
			case next <- p:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		close(next)
		wg.Wait()
		return nil
	}
	return tea.Batch(run, listen(ctx, ch), a.tick())
}

// handlePart applies an event of one part of a view of all parts: the rows
// of the part whose turn it is join the view, a part that got ahead waits.
func (a *App) handlePart(m loadMsg) tea.Cmd {
	d := m.doc
	cl := d.combined
	if cl == nil || m.part < 0 || m.part >= len(d.parts) {
		return m.next
	}
	st := cl.ahead[m.part]
	if st == nil {
		st = &partState{}
		cl.ahead[m.part] = st
	}
	if m.rows != nil {
		st.rows = m.rows
	}
	if m.done != nil {
		st.done = m.done
		d.partsDone++
		d.bytes += m.done.Bytes
	}
	from := d.entries.Len()
	a.joinParts(d)
	current := d == a.doc
	if d.entries.Len() > from {
		d.markCarried(from)
		if current {
			a.dv.entriesChanged(from)
			a.dv.showPicks()
		}
	}
	if cl.head < len(d.parts) {
		return m.next
	}
	if len(d.partErrs) > 0 {
		d.err = fmt.Errorf("%s of %s parts failed: %s", display.Count(len(d.partErrs)), display.Count(len(d.parts)), d.partErrs[0])
	}
	d.combined = nil
	return a.loadFinished(d)
}

// joinParts copies into the view the rows of the parts whose turn it is,
// in part order, and the problems of each part it finishes, on the rows its
// entries have here.
func (a *App) joinParts(d *document) {
	cl := d.combined
	for cl.head < len(d.parts) {
		st := cl.ahead[cl.head]
		if st == nil {
			return
		}
		if st.rows != nil && st.rows.Len() > cl.copied {
			d.entries.AppendRows(st.rows, cl.copied, st.rows.Len())
			cl.copied = st.rows.Len()
		}
		r := st.done
		if r == nil {
			return
		}
		start := int(d.partStart[cl.head])
		d.nErrors += r.Errors
		d.nWarns += r.Warnings
		for _, p := range r.Problems {
			if p.Entry >= 0 {
				if p.Entry >= cl.copied {
					continue // an entry the load did not deliver
				}
				p.Entry += start
			}
			p.Message = fmt.Sprintf("part %d: %s", cl.head+1, p.Message)
			d.problems = append(d.problems, p)
		}
		if r.Err != nil {
			d.partErrs = append(d.partErrs, fmt.Sprintf("part %d: %v", cl.head+1, r.Err))
			if r.Errors == 0 {
				// Nothing the part's own checks found says why it is
				// missing (it was not fetched, or not followed): the view
				// reports it as the index's cross-document checks do, so
				// that the problems page lists what the status bar counts.
				d.problems = append(d.problems, partUnreachable(cl.head, d.parts[cl.head], r))
				d.nErrors++
			}
		}
		delete(cl.ahead, cl.head)
		cl.head++
		cl.copied = 0
		d.partStart = append(d.partStart, int32(d.entries.Len()))
		cl.window.advance(cl.head)
	}
}

// partUnreachable is the problem of part p (0-based), at url, that failed
// before it could be read: a document-level problem of the view, since none
// of its entries are in it.
func partUnreachable(p int, url string, r *session.LoadResult) model.Problem {
	status := 0
	if r.Exchange != nil {
		status = r.Exchange.Status
	}
	pr := crawl.ChildUnreachable(-1, url, status, r.Err)
	pr.Message = fmt.Sprintf("part %d: %s", p+1, pr.Message)
	return pr
}

// partOf is the part (0-based) that row i of a view of all parts comes
// from, -1 when d is no such view.
func (d *document) partOf(i int) int {
	if d.parts == nil || len(d.partStart) == 0 {
		return -1
	}
	// The last part whose first row is at or before i.
	p := sort.Search(len(d.partStart), func(k int) bool { return int(d.partStart[k]) > i }) - 1
	return min(max(p, 0), len(d.parts)-1)
}
