package crawl

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"strings"
	"sync"

	"rsx/internal/spool"
	"rsx/model"
)

// A streamed walk (WalkStream) reports each document of the tree as soon as
// it and the documents below it are done, and keeps of the tree only the
// path from the root to where it is: an index of a million parts costs the
// parts being loaded at once, its down links in a temporary file and a
// 128-bit hash of each URL reached, not a node of every part (issue 23).

// downsInMemory is how many down links of one document a streamed walk
// keeps in memory; the others wait in a temporary file.
const downsInMemory = 4096

// recentDocuments is how many documents a streamed walk keeps after it is
// done with them, for the repeats that meet them again (a document listed
// twice): past them a repeat loads its document again.
const recentDocuments = 1024

func newDownList(dir string) *spool.List[DownLink] {
	return spool.NewList(dir, "down links", downsInMemory, appendDownLink, readDownLink,
		func(a, b *DownLink) int { return cmp.Compare(a.Entry, b.Entry) })
}

// downLinkOf is the down link of entry e of a document whose URL is base.
func downLinkOf(base string, e *model.Entry) DownLink {
	return DownLink{
		Entry:      e.Index,
		Loc:        model.ResolveHref(base, e.Loc),
		Capability: model.Capability(strings.Clone(string(e.MD.Capability))),
		At:         cloneDatetime(e.MD.At),
		Completed:  cloneDatetime(e.MD.Completed),
		From:       cloneDatetime(e.MD.From),
		Until:      cloneDatetime(e.MD.Until),
		Length:     e.MD.Length,
		LengthOK:   e.MD.LengthOK,
		Hash:       declaredHash(e.MD.HashRaw),
	}
}

// appendDownLink encodes dl: its entry, loc, capability, the four
// datetimes as written, the length and the hash attribute as written (both
// are parsed again when read back, as from the document).
func appendDownLink(b []byte, dl *DownLink) []byte {
	str := func(b []byte, s string) []byte {
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(dl.Entry))
	b = str(b, dl.Loc)
	b = str(b, string(dl.Capability))
	for _, d := range []*model.Datetime{&dl.At, &dl.Completed, &dl.From, &dl.Until} {
		b = str(b, d.Raw)
	}
	b = binary.AppendVarint(b, dl.Length)
	if dl.LengthOK {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return str(b, dl.Hash.String())
}

var errBadDownLink = errors.New("a down link that does not decode")

func readDownLink(b []byte, dl *DownLink) error {
	num := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	str := func() (string, bool) {
		n, ok := num()
		if !ok || n > uint64(len(b)) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	entry, ok := num()
	if !ok {
		return errBadDownLink
	}
	*dl = DownLink{Entry: int(entry)}
	var capability string
	if dl.Loc, ok = str(); !ok {
		return errBadDownLink
	}
	if capability, ok = str(); !ok {
		return errBadDownLink
	}
	dl.Capability = model.Capability(capability)
	for _, d := range []*model.Datetime{&dl.At, &dl.Completed, &dl.From, &dl.Until} {
		raw, ok := str()
		if !ok {
			return errBadDownLink
		}
		if raw != "" {
			*d, _ = model.ParseDatetime(raw)
		}
	}
	length, n := binary.Varint(b)
	if n <= 0 || len(b) < n+1 {
		return errBadDownLink
	}
	dl.Length, dl.LengthOK = length, b[n] == 1
	b = b[n+1:]
	hash, ok := str()
	if !ok {
		return errBadDownLink
	}
	dl.Hash = declaredHash(hash)
	return nil
}

// urlKey is the 128-bit hash of a normalised URL that a streamed walk keeps
// of each document it reaches: two seeds of the process's own, so that a
// Source cannot choose URLs that collide.
type urlKey [2]uint64

// streamer holds the state of one WalkStream.
type streamer struct {
	g       *Graph
	opts    WalkOptions
	done    func(*Node)
	seeds   [2]maphash.Seed
	visited map[urlKey]struct{}
	seq     int

	mu     sync.Mutex
	loaded int // documents loaded or being loaded, under mu

	// open are the documents on the path from the root, recent the last
	// ones done with: what a repeat is compared with.
	open   map[urlKey]*Document
	recent map[urlKey]*Document
	order  []urlKey // recent's keys, oldest first
	// frames are the archives of the Capability Lists on the path, whose
	// documents' archives links are checked against them.
	frames []*archivesFrame
}

// archivesFrame is a Capability List on the path of a streamed walk and its
// archives. active is set while the walk is below one of its documents that
// is not an archive (checkArchivesLinks).
type archivesFrame struct {
	cl       *Node
	archives map[string]*Node
	active   bool
}

func (s *streamer) key(url string) urlKey {
	u := NormalizeURL(url)
	return urlKey{maphash.String(s.seeds[0], u), maphash.String(s.seeds[1], u)}
}

func (s *streamer) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.MaxDocuments >= 0 && s.loaded >= s.opts.MaxDocuments {
		return false
	}
	s.loaded++
	return true
}

// WalkStream is Walk for a tree too large to keep: it calls done with each
// node once the node and every node below it are done (their
// cross-document problems final), children before their parent, and then
// forgets them. A node keeps its Parent, which is being walked; its place in
// document order is Node.Seq, that of the last node below it Node.End, its
// place among its parent's children Node.Index, and NumChildren says how
// many children it has; Children stays empty. The down links of a document
// being walked wait in a temporary file in opts.TempDir (Document.EachDown),
// removed once done returns for it.
//
// The walk loads the children of a document in order, a few ahead of the
// one being walked, and each document's below it before the next sibling's
// (depth first): repeats are found, and MaxDocuments reached, in document
// order. The documents of a Capability List are loaded before any is
// walked, for the checks of their archives links. With FetchPackages or
// Path the tree is walked whole (Walk) and then given to done as it would
// have been streamed.
//
// The error and the root are Walk's.
func (g *Graph) WalkStream(ctx context.Context, root string, opts WalkOptions, done func(*Node)) (*Node, error) {
	if opts.FetchPackages || len(opts.Path) > 0 {
		n, err := g.Walk(ctx, root, opts)
		n.Replay(done)
		return n, err
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.MaxDocuments == 0 {
		opts.MaxDocuments = DefaultMaxDocuments
	}
	s := &streamer{g: g, opts: opts, done: done, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		visited: map[urlKey]struct{}{}, loaded: 1, open: map[urlKey]*Document{}, recent: map[urlKey]*Document{}}
	n := &Node{}
	s.visited[s.key(root)] = struct{}{}
	n.Document = g.fetchDoc(ctx, root, s.loadOptions(LoadOptions{KeepEntries: opts.KeepEntries, Check: opts.Check, countDown: opts.Depth == 0}))
	if n.Err != nil && n.Header == nil {
		s.visit(ctx, n)
		return n, n.Err
	}
	s.visit(ctx, n)
	return n, ctx.Err()
}

func (s *streamer) loadOptions(o LoadOptions) LoadOptions {
	o.noExchange, o.spoolDown, o.spoolDownDir = true, true, s.opts.TempDir
	return o
}

// visit walks the tree below n, whose document is loaded (or that is a
// leaf: skipped, a repeat, not loaded), and hands n to done.
func (s *streamer) visit(ctx context.Context, n *Node) {
	n.Seq = s.seq
	s.seq++
	if n.Document != nil && !n.Repeat && (n.Err == nil || n.Header != nil) {
		s.expand(ctx, n)
	}
	if !s.opts.Hints {
		n.Cross = deleteHints(n.Cross)
	}
	for i := range n.Cross {
		n.Cross[i].Message = withSection(n.Cross[i])
	}
	n.End = s.seq - 1
	s.done(n)
	if d := n.Document; d != nil && !n.Repeat {
		if d.downs != nil {
			d.downs.Close()
			d.downs = nil
		}
		s.remember(s.key(nodeLoc(n)), d)
	}
}

// nodeLoc is the URL a node was reached by.
func nodeLoc(n *Node) string {
	if n.Via != nil {
		return n.Via.Loc
	}
	return n.URL
}

func deleteHints(ps []model.Problem) []model.Problem {
	out := ps[:0]
	for _, p := range ps {
		if p.Severity != model.SeverityHint {
			out = append(out, p)
		}
	}
	return out
}

// remember keeps d among the recent documents.
func (s *streamer) remember(k urlKey, d *Document) {
	if _, ok := s.recent[k]; ok {
		return
	}
	s.recent[k] = d
	s.order = append(s.order, k)
	if len(s.order) > recentDocuments {
		delete(s.recent, s.order[0])
		s.order = s.order[1:]
	}
}

// expand walks the children of n, as Walk's expand and the checks of
// checkChildren do.
func (s *streamer) expand(ctx context.Context, n *Node) {
	if n.DownCount == 0 {
		return
	}
	if !s.opts.Archives && n.Capability().IsArchive() {
		n.ArchiveNotWalked = true
		return
	}
	if s.opts.Depth >= 0 && n.Depth >= s.opts.Depth {
		n.Unexpanded = true
		return
	}
	nk := s.key(nodeLoc(n))
	s.open[nk] = n.Document
	defer delete(s.open, nk)

	// Every document n lists is registered first, as Walk does, so that
	// one listed here and again below is expanded here.
	repeat := make([]uint64, (n.DownCount+63)/64)
	count := 0
	err := n.EachDown(func(dl *DownLink) bool {
		k := s.key(dl.Loc)
		if _, ok := s.visited[k]; ok {
			repeat[count/64] |= 1 << (count % 64)
		} else {
			s.visited[k] = struct{}{}
		}
		count++
		return count < len(repeat)*64 // a document is what it was: no more links than counted
	})
	if err != nil && n.Err == nil {
		n.Err = err
	}
	n.NumChildren = count

	checks := n.Header != nil
	pcap := n.Capability()
	var seq *changeSequence
	if checks && n.IsIndex() && !pcap.IsArchive() && (pcap == model.CapChangeList || pcap == model.CapChangeDump) {
		seq = newChangeSequence(n)
		seq.noHints = !s.opts.Hints // said at the end by no one: not kept while the index is walked
	}
	var frame *archivesFrame
	each := func(c *Node) {
		if s.opts.Check {
			// The archives links of c, against each Capability List above
			// n (as checkTree reaches them: the outer first), then c
			// against n, then against n's own archives.
			if c.Document != nil && c.Header != nil && !c.Repeat {
				for _, f := range s.frames {
					if f.active && f != frame {
						checkArchivesLinksOf(f.cl, f.archives, c)
					}
				}
			}
			if checks {
				s.checkChild(n, c, seq)
			}
			if frame != nil && !c.Capability().IsArchive() && c.Document != nil && c.Header != nil && !c.Repeat {
				checkArchivesLinksOf(n, frame.archives, c)
			}
		}
		if frame != nil {
			frame.active = !c.Capability().IsArchive()
		}
		s.visit(ctx, c)
	}
	if pcap == model.CapCapabilityList && !n.IsIndex() {
		// The archives the Capability List lists are known before any of
		// its documents is walked: all are loaded first.
		var children []*Node
		s.children(ctx, n, repeat, func(c *Node) { children = append(children, c) })
		frame = &archivesFrame{cl: n, archives: archivesOf(children)}
		if len(frame.archives) == 0 {
			frame = nil
		} else {
			s.frames = append(s.frames, frame)
		}
		for i, c := range children {
			each(c)
			children[i] = nil
		}
		if frame != nil {
			s.frames = s.frames[:len(s.frames)-1]
		}
	} else {
		s.children(ctx, n, repeat, each)
	}
	if seq != nil {
		seq.finish()
	}
}

// checkChild runs the checks of checkChildren of n for its child c.
func (s *streamer) checkChild(n, c *Node, seq *changeSequence) {
	checkDeclaredChild(n, c)
	pcap := n.Capability()
	switch {
	case pcap.IsArchive():
		checkArchiveChild(n, c)
	case n.IsIndex():
		if usable(n, c) {
			checkIndexChild(n, c)
		}
		if seq != nil {
			seq.add(c)
		}
	case pcap == model.CapDescription:
		checkDescriptionChild(n, c)
	case pcap == model.CapCapabilityList:
		checkCapabilityListChild(n, c)
	}
}

// pending is a child of a streamed walk whose document is being loaded.
type pending struct {
	node  *Node
	ready chan struct{}
}

// children loads the children of n, a window of them at once, and calls
// fn with each, in order, once its document is loaded.
func (s *streamer) children(ctx context.Context, n *Node, repeat []uint64, fn func(*Node)) {
	window := make(chan pending, 2*s.opts.Concurrency)
	sem := make(chan struct{}, s.opts.Concurrency)
	var readErr error // read by the consumer once window is closed
	go func() {
		defer close(window)
		i := 0
		readErr = n.EachDown(func(dl *DownLink) bool {
			if i >= n.NumChildren {
				return false
			}
			v := *dl
			c := &Node{Parent: n, Via: &v, Depth: n.Depth + 1, Index: i}
			p := pending{node: c}
			isRepeat := repeat[i/64]&(1<<(i%64)) != 0
			i++
			switch {
			case isRepeat:
				c.Repeat = true
			case ctx.Err() != nil:
				c.Document = &Document{URL: v.Loc, Err: ctx.Err()}
			case !s.admit():
				c.Skipped = true
			default:
				p.ready = make(chan struct{})
				sem <- struct{}{}
				go func() {
					defer close(p.ready)
					defer func() { <-sem }()
					atBound := s.opts.Depth >= 0 && c.Depth >= s.opts.Depth
					c.Document = s.g.fetchDoc(ctx, v.Loc, s.loadOptions(v.loadOptions(s.opts.KeepEntries, s.opts.Check, atBound)))
				}()
			}
			window <- p
			return true
		})
	}()
	for p := range window {
		if p.ready != nil {
			<-p.ready
		}
		if p.node.Repeat {
			p.node.Document = s.repeated(ctx, p.node)
		}
		fn(p.node)
	}
	if readErr != nil && n.Err == nil {
		n.Err = readErr // the links could not be read back: the walk below n stops short
	}
}

// repeated is the document of a repeat: the one on the path or among the
// recent ones, else loaded again (as Walk's repeat is given the document of
// the node it repeats, which a streamed walk has forgotten).
func (s *streamer) repeated(ctx context.Context, c *Node) *Document {
	k := s.key(c.Via.Loc)
	if d, ok := s.open[k]; ok {
		return d
	}
	if d, ok := s.recent[k]; ok {
		return d
	}
	if ctx.Err() != nil {
		return &Document{URL: c.Via.Loc, Err: ctx.Err()}
	}
	atBound := s.opts.Depth >= 0 && c.Depth >= s.opts.Depth
	o := c.Via.loadOptions(s.opts.KeepEntries, s.opts.Check, atBound)
	o.noExchange, o.countDown = true, true
	d := s.g.fetchDoc(ctx, c.Via.Loc, o)
	s.remember(k, d)
	return d
}

// Replay gives the nodes of a walked tree to done as WalkStream would have:
// children before their parent, with Seq, End, Index and NumChildren set.
func (n *Node) Replay(done func(*Node)) {
	seq := 0
	var replay func(x *Node, index int)
	replay = func(x *Node, index int) {
		x.Seq, x.Index, x.NumChildren = seq, index, len(x.Children)
		seq++
		for i, c := range x.Children {
			replay(c, i)
		}
		x.End = seq - 1
		done(x)
	}
	replay(n, 0)
}
