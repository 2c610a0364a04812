package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"rsx/dest/pathmap"
	"rsx/dest/plan"
	"rsx/dest/state"
	runspool "rsx/internal/spool"
)

// The collision rule. Two resources collide when they need one path (the
// same path, or paths that differ only by case on a destination that
// ignores case), or when one needs as a folder the path that is the other's
// file. Which one gets the path is decided when planning, from the
// resources the plan writes and the rows of the state, so that it is the
// same in every run whatever the order the workers take them in, and on
// every store:
//
//  1. A folder wins over a file: a resource whose path another needs as a
//     folder is refused (http://h/a loses to http://h/a/b).
//  2. Among resources that need the same path, the byte-wise smallest URI
//     wins: http://h/a wins over https://h/a and http://h//a.
//  3. A resource the Source deleted (a deletion remembered or applied now)
//     holds no path against one the Source lists (but a file of the copy
//     inside a path still makes it a folder, by 1).
//  4. A path held by another Source's resource stays with it: a path of
//     the destination belongs to one Source. The resource that loses it is
//     refused as "owned" (Plan.Refused, naming that Source), and recorded
//     as kept out (state's held): when that Source's resource leaves the
//     path (its Source deleted it, and a run with --delete removed it), the
//     next sync of the Source kept out reconciles its copy and copies it.
//
// A resource of the state that loses (its path taken over) has its row
// removed, and its file replaced or removed, by the write of the winner; it
// is reported as refused, naming the winner. A resource that loses is
// refused, not fetched (Plan.Refused, kind "collision"): not a failure of
// the run, and outside the copy for an audit.

// collider gathers what the plan writes, to find its collisions.
type collider struct {
	s        *Dest
	srcID    int64
	det      *state.Detector
	foldCase bool
	seed1    maphash.Seed
	seed2    maphash.Seed
	// keys are the hashed keys of each new path of the plan and of their
	// folders, in a file past a run (internal/spool): a plan of a million
	// new resources held 16 MB of them, and a folder of each (a site of
	// /record/N/file) as much again in a map (issue 23).
	keys    *runspool.List[pathKey]
	last    string // the last path added, whose folders are in keys
	hits    map[string][]state.Holder
	adds    int
	empty   bool // the state has no resource, of any Source
	checked bool // empty was asked
	next    int  // adds at which to ask again whether to preload the state's paths
	// owners are the keys of the other Sources whose rows hold a path
	// (read when the first is met).
	owners map[int64]string
}

func newCollider(s *Dest, srcID int64) *collider {
	fold := s.st.CaseInsensitive()
	return &collider{s: s, srcID: srcID, det: s.db.NewDetector(fold), foldCase: fold,
		seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed(), hits: map[string][]state.Holder{},
		keys: runspool.NewList(s.st.TempDir(), "plan's paths", pathKeysRun, appendPathKey, readPathKey, comparePathKeys).Unstable()}
}

// pathKeysRun is how many path keys a plan sorts in memory at once (1.5 MB;
// tests set fewer).
var pathKeysRun = 65536

// pathKey is the hashed key of a path the plan writes, or (folder) of a
// folder it needs.
type pathKey struct {
	h      [2]uint64
	folder bool
}

func appendPathKey(b []byte, k *pathKey) []byte {
	b = binary.BigEndian.AppendUint64(b, k.h[0])
	b = binary.BigEndian.AppendUint64(b, k.h[1])
	if k.folder {
		return append(b, 1)
	}
	return append(b, 0)
}

func readPathKey(b []byte, k *pathKey) error {
	if len(b) != 17 {
		return fmt.Errorf("a path key of %d bytes", len(b))
	}
	k.h = [2]uint64{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
	k.folder = b[16] == 1
	return nil
}

func comparePathKeys(a, b *pathKey) int {
	if c := cmpHash(a.h, b.h); c != 0 {
		return c
	}
	return cmp.Compare(btoi(a.folder), btoi(b.folder))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// close removes the file of the plan's path keys, if any.
func (c *collider) close() {
	if c != nil {
		c.keys.Close()
	}
}

// k is the form in which paths are compared (as state.Detector does).
func (c *collider) k(p string) string {
	if c.foldCase {
		return pathmap.Key(p)
	}
	return p
}

func (c *collider) hash(k string) [2]uint64 {
	return [2]uint64{maphash.String(c.seed1, k), maphash.String(c.seed2, k)}
}

// add notes a path the plan writes (a Create, or an Update to a new path)
// and the rows of the state it collides with.
func (c *collider) add(ctx context.Context, uri, path string) error {
	kp := c.k(path)
	c.keys.Add(pathKey{h: c.hash(kp)})
	// The folders the last path has are in keys already.
	same := 0
	for same < len(kp) && same < len(c.last) && kp[same] == c.last[same] {
		same++
	}
	for i := 0; i < len(kp); i++ {
		if kp[i] == '/' && !(i < same && c.last[i] == '/') {
			c.keys.Add(pathKey{h: c.hash(kp[:i]), folder: true})
		}
	}
	c.last = kp
	if !c.checked {
		c.checked = true
		n, err := c.s.db.RowsUpTo(ctx, 0, 1)
		if err != nil {
			return err
		}
		c.empty, c.next = n == 0, preloadClaims
	}
	if c.empty {
		return nil // a new copy: nothing to collide with
	}
	if c.adds++; c.next > 0 && c.adds >= c.next {
		// Many paths to check beside the state's: its paths in memory
		// spare the queries of those that collide with nothing.
		c.next = 2 * c.adds
		preload, err := preloadPays(ctx, c.s.db, c.adds)
		if err != nil {
			return err
		}
		if preload {
			c.next = 0
			if err := c.det.Preload(ctx); err != nil {
				return err
			}
		}
	}
	hs, err := c.det.Holders(ctx, c.srcID, uri, path)
	if err != nil {
		return err
	}
	if len(hs) > 0 {
		c.hits[uri] = hs
	}
	return nil
}

// contender is a resource that needs a contested path.
type contender struct {
	uri, path, key string
	holders        []state.Holder // rows of the state it collides with
	lost           *state.CollisionError
	takes          *state.Holder
}

// settle decides the plan's collisions by the rule above: the items that
// lose are taken out of the plan and refused, those that win take their
// path over from the rows of the state they beat, and the items of those
// rows are taken out.
func (b *builder) settleCollisions(ctx context.Context) error {
	c := b.col
	if c == nil {
		return nil
	}
	// Keys the plan needs twice, and files of the plan another item of
	// it needs as a folder: in order, a key's files come before its
	// folders.
	contested := map[[2]uint64]bool{}
	var (
		cur   [2]uint64
		files int
		any   bool
	)
	err := c.keys.Each(func(k pathKey) error {
		if !any || k.h != cur {
			cur, files, any = k.h, 0, true
		}
		if !k.folder {
			files++
		}
		if files > 1 || (files > 0 && k.folder) {
			contested[k.h] = true
		}
		return nil
	})
	c.keys.Close()
	c.last = ""
	if err != nil {
		return err
	}
	if len(contested) == 0 && len(c.hits) == 0 {
		return nil
	}
	// The items involved, and the rows this plan deletes.
	cont := map[string]*contender{}
	deleting := map[int64]bool{}
	deletedVia := map[int64]string{} // of the deletions that carry a via link
	err = b.p.items.each(func(it *Item) error {
		if it.ID > 0 && (it.Action == plan.Delete || it.Action == plan.PendingDelete) {
			deleting[it.ID] = true
			if v := deletionVia(&it.Entry); v != "" {
				deletedVia[it.ID] = v
			}
		}
		if it.Path == "" || (it.Action != plan.Create && it.Action != plan.Update) {
			return nil
		}
		kp := c.k(it.Path)
		hs, hit := c.hits[it.Entry.URI]
		in := hit || contested[c.hash(kp)]
		for i := 0; i < len(kp) && !in; i++ {
			in = kp[i] == '/' && contested[c.hash(kp[:i])]
		}
		if in {
			cont[it.Entry.URI] = &contender{uri: it.Entry.URI, path: it.Path, key: kp, holders: hs}
		}
		return nil
	})
	if err != nil {
		return err
	}
	takes, refused := c.decide(cont, deleting)
	lost := false
	for _, x := range cont {
		lost = lost || x.lost != nil
	}
	if !lost && len(takes) == 0 {
		return nil
	}
	return b.rewrite(ctx, cont, takes, refused, deletedVia)
}

func cmpHash(a, b [2]uint64) int {
	if x := cmp.Compare(a[0], b[0]); x != 0 {
		return x
	}
	return cmp.Compare(a[1], b[1])
}

// decide applies the rule to the contenders: each loses (lost) or wins,
// taking over at most one row (takes). It returns the rows taken over (by
// ID) and the refusals of the rows that lose.
func (c *collider) decide(cont map[string]*contender, deleting map[int64]bool) (map[int64]state.Holder, []Failure) {
	list := make([]*contender, 0, len(cont))
	for _, x := range cont {
		list = append(list, x)
	}
	slices.SortFunc(list, func(a, b *contender) int { return strings.Compare(a.uri, b.uri) })
	// 1. A folder wins over a file: a contender whose path another needs
	// as a folder loses to the smallest such URI.
	needs := map[string]*contender{} // folder key → the smallest URI that needs it
	for _, x := range list {         // sorted: the first is the smallest
		for i := 0; i < len(x.key); i++ {
			if x.key[i] == '/' {
				if _, ok := needs[x.key[:i]]; !ok {
					needs[x.key[:i]] = x
				}
			}
		}
	}
	for _, x := range list {
		if y, ok := needs[x.key]; ok {
			x.lost = &state.CollisionError{Kind: state.FileFolder, URI: x.uri, Path: x.path, OtherURI: y.uri, OtherPath: y.path}
			continue
		}
		for _, h := range x.holders {
			if h.Kind == state.FileFolder && h.Below {
				x.lost = c.collisionWith(x, &h)
				break
			}
		}
	}
	// 2–4. The rows of the state: another Source's always holds; a row
	// the Source deleted never does; otherwise a file where a folder must
	// be is taken over, and one at the path itself holds when its URI is
	// smaller.
	for _, x := range list {
		if x.lost != nil {
			continue
		}
		for i := range x.holders {
			h := &x.holders[i]
			if h.Below {
				continue
			}
			deleted := h.Deleted || deleting[h.ID]
			switch {
			case h.SourceID != c.srcID:
				x.lost = c.collisionWith(x, h)
			case deleted, h.Kind == state.FileFolder, h.URI > x.uri:
				if x.takes != nil && x.takes.ID != h.ID {
					x.lost = c.collisionWith(x, h) // two rows to take over: keep both
				} else {
					x.takes = h
				}
			default:
				x.lost = c.collisionWith(x, h)
			}
			if x.lost != nil {
				x.takes = nil
				break
			}
		}
	}
	// 2. Among the plan's own contenders for one path, the smallest URI.
	byKey := map[string]*contender{}
	for _, x := range list { // sorted: the first of a key is the smallest
		if x.lost != nil {
			continue
		}
		if w, ok := byKey[x.key]; ok {
			kind := state.SamePath
			if w.path != x.path {
				kind = state.CaseOnly
			}
			x.lost = &state.CollisionError{Kind: kind, URI: x.uri, Path: x.path, OtherURI: w.uri, OtherPath: w.path}
			x.takes = nil
			continue
		}
		byKey[x.key] = x
	}
	// A contender that lost to a row another contender takes over lost
	// to that one.
	takenBy := map[string]*contender{}
	for _, x := range list {
		if x.lost == nil && x.takes != nil {
			if w, ok := takenBy[x.takes.URI]; !ok || x.uri < w.uri {
				takenBy[x.takes.URI] = x
			}
		}
	}
	for _, x := range list {
		if x.lost != nil && x.lost.OtherSource == 0 {
			if w, ok := takenBy[x.lost.OtherURI]; ok {
				x.lost.OtherURI, x.lost.OtherPath = w.uri, w.path
			}
		}
	}
	// The rows taken over: refused unless the Source deleted them.
	taken := map[int64]state.Holder{}
	var refused []Failure
	for _, x := range list {
		if x.lost != nil || x.takes == nil {
			continue
		}
		h := *x.takes
		h.Deleted = h.Deleted || deleting[h.ID]
		x.takes = &h
		if _, ok := taken[h.ID]; ok {
			continue
		}
		taken[h.ID] = h
		if !h.Deleted {
			kind := state.SamePath
			switch {
			case h.Kind == state.FileFolder:
				kind = state.FileFolder
			case h.Path != x.path:
				kind = state.CaseOnly
			}
			ce := &state.CollisionError{Kind: kind, URI: h.URI, Path: h.Path, OtherURI: x.uri, OtherPath: x.path}
			refused = append(refused, Failure{URL: h.URI, Path: h.Path, Kind: KindCollision, Err: &CollisionRefusal{CollisionError: ce, TakenOver: true}})
		}
	}
	return taken, refused
}

// collisionWith is the collision of a contender with a row that holds
// (OtherSource is set only for another Source's).
func (c *collider) collisionWith(x *contender, h *state.Holder) *state.CollisionError {
	kind := h.Kind
	if kind == state.SamePath && h.Path != x.path {
		kind = state.CaseOnly
	}
	ce := &state.CollisionError{Kind: kind, URI: x.uri, Path: x.path, OtherURI: h.URI, OtherPath: h.Path}
	if h.SourceID != c.srcID {
		ce.OtherSource = h.SourceID
	}
	return ce
}

// CollisionRefusal is a resource refused because another gets its path
// (the collision rule, collide.go).
type CollisionRefusal struct {
	*state.CollisionError
	// TakenOver: the resource had the path, and a run gave it to the
	// other.
	TakenOver bool
	// Owner is the key of the other Source whose copy holds the path
	// (CollisionError.OtherSource): the refusal is of kind KindOwned.
	Owner string
}

func (e *CollisionRefusal) Error() string {
	ce := e.CollisionError
	why := "the smaller URI wins"
	switch {
	case ce.OtherSource != 0 && e.Owner != "":
		return fmt.Sprintf("%s in the copy of the Source %s: a path of the destination belongs to one Source (it is copied once that copy no longer holds it)", ce.Error(), e.Owner)
	case ce.OtherSource != 0:
		why = "a path of another Source's resource stays with it"
	case ce.Kind == state.FileFolder:
		why = "a folder wins over a file"
	}
	if e.TakenOver {
		return fmt.Sprintf("%s; the path is given to %s (%s)", ce.Error(), ce.OtherURI, why)
	}
	return fmt.Sprintf("%s; %s gets it (%s)", ce.Error(), ce.OtherURI, why)
}

func (e *CollisionRefusal) Unwrap() error { return e.CollisionError }

// rewrite takes the losers and the items of the rows taken over out of the
// plan, refusing them, and marks the winners' takeovers.
func (b *builder) rewrite(ctx context.Context, cont map[string]*contender, taken map[int64]state.Holder, refused []Failure, deletedVia map[int64]string) error {
	p, c := b.p, b.col
	sp, err := newSpool(b.s.st.TempDir())
	if err != nil {
		return err
	}
	sum := &p.Summary
	drop := func(it *Item) {
		switch it.Action {
		case plan.Create, plan.Update:
			if it.Action == plan.Create {
				sum.Create--
			} else {
				sum.Update--
			}
			if it.Entry.Length >= 0 {
				sum.Bytes -= it.Entry.Length
			} else {
				sum.UnknownBytes--
			}
		case plan.Delete:
			sum.Delete--
		case plan.PendingDelete:
			sum.PendingDelete--
		case plan.Unchanged:
			sum.Unchanged--
			if it.Touch {
				sum.Touch--
			}
		}
		if k, _, ok := splitRef(it.Entry.Ref); ok && k < len(p.pkgs) && p.pkgs[k] != nil {
			p.pkgs[k].refs.Add(-1)
		}
	}
	err = p.items.each(func(it *Item) error {
		if it.ID > 0 {
			if _, gone := taken[it.ID]; gone {
				drop(it)
				return nil
			}
		}
		if x, ok := cont[it.Entry.URI]; ok && it.Path != "" && (it.Action == plan.Create || it.Action == plan.Update) {
			if x.lost != nil {
				drop(it)
				f := Failure{URL: x.uri, Path: x.path, Kind: KindCollision, Err: &CollisionRefusal{CollisionError: x.lost}}
				if x.lost.OtherSource != 0 {
					owner, err := c.owner(ctx, x.lost.OtherSource)
					if err != nil {
						return err
					}
					f.Kind, f.Err = KindOwned, &CollisionRefusal{CollisionError: x.lost, Owner: owner}
					p.Summary.Owned++
					p.held = append(p.held, state.Held{URI: x.uri, OwnerID: x.lost.OtherSource, OwnerPath: x.lost.OtherPath})
				}
				b.refuseCollision(f)
				return nil
			}
			if x.takes != nil {
				it.Takes = Taken{ID: x.takes.ID, URI: x.takes.URI, Path: x.takes.Path, Deleted: x.takes.Deleted}
				if x.takes.Deleted {
					it.Takes.Via = deletedVia[x.takes.ID]
				}
			}
		}
		return sp.add(it)
	})
	if err == nil {
		err = sp.finish()
	}
	if err != nil {
		sp.close()
		return err
	}
	p.items.close()
	p.items = sp
	for _, f := range refused {
		b.refuseCollision(f)
	}
	for _, h := range taken {
		if h.Deleted {
			p.Notes = append(p.Notes, fmt.Sprintf("the path %s of %s, which the Source deleted, is taken over by another resource", h.Path, h.URI))
		}
	}
	b.dropUnusedPackages()
	return nil
}

// refuseCollision notes a resource refused by the collision rule.
func (b *builder) refuseCollision(f Failure) {
	b.p.Summary.Refused++
	b.p.Summary.Collisions++
	if len(b.p.Refused) < maxListed {
		b.p.Refused = append(b.p.Refused, f)
	}
}

// owner is the key of the Source id (another Source whose row holds a
// path).
func (c *collider) owner(ctx context.Context, id int64) (string, error) {
	if c.owners == nil {
		srcs, err := c.s.db.Sources(ctx)
		if err != nil {
			return "", err
		}
		c.owners = make(map[int64]string, len(srcs))
		for _, src := range srcs {
			c.owners[src.ID] = src.URL
		}
	}
	if u, ok := c.owners[id]; ok {
		return u, nil
	}
	return fmt.Sprintf("number %d", id), nil
}

// recordHeld records, with a run's first batch, the resources of the plan
// another Source's copy keeps out; a baseline of the whole Source records
// them anew.
func recordHeld(ctx context.Context, w *state.Writer, p *Plan, srcID int64) error {
	if p.Mode == ModeBaseline && p.complete && p.opts.Only == nil {
		if err := w.ClearHeld(ctx, srcID); err != nil {
			return err
		}
	}
	for _, h := range p.held {
		if err := w.PutHeld(ctx, srcID, h); err != nil {
			return err
		}
	}
	return nil
}
