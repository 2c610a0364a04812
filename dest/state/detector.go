package state

import (
	"cmp"
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"rsx/dest/pathmap"
)

// CollisionKind says how two resources' paths collide.
type CollisionKind uint8

const (
	SamePath   CollisionKind = iota + 1 // the same path
	CaseOnly                            // paths that differ only by case, on a destination that ignores case
	FileFolder                          // one needs as a folder the path that is the other's file
)

// CollisionError is a path that cannot be given to a resource because another
// resource holds it.
type CollisionError struct {
	Kind      CollisionKind
	URI, Path string // the resource that asked
	// The resource that holds the path (or the file in the way).
	OtherURI, OtherPath string
	OtherSource         int64
}

func (e *CollisionError) Error() string {
	switch e.Kind {
	case CaseOnly:
		return fmt.Sprintf("path %s of %s differs only by case from %s, the path of %s, and the destination ignores case", e.Path, e.URI, e.OtherPath, e.OtherURI)
	case FileFolder:
		if len(e.OtherPath) > len(e.Path) {
			return fmt.Sprintf("path %s of %s is a folder that holds %s, the path of %s", e.Path, e.URI, e.OtherPath, e.OtherURI)
		}
		return fmt.Sprintf("path %s of %s needs %s as a folder, but it is the path of %s", e.Path, e.URI, e.OtherPath, e.OtherURI)
	}
	return fmt.Sprintf("path %s of %s is already the path of %s", e.Path, e.URI, e.OtherURI)
}

type owner struct {
	source   int64
	uri      string
	path     string
	replaces string // the URI of the same Source whose row it takes over ("" for none)
}

// mine reports whether the row o of the state is the claimer's own, or the
// one it takes over.
func (me owner) mine(o owner) bool {
	return o.source == me.source && (o.uri == me.uri || (me.replaces != "" && o.uri == me.replaces))
}

// Detector finds the collisions of a run's paths with those the state holds
// and with each other. Claim a path before writing it; the claim lasts until
// the batch that records the resource is committed (a Writer with this
// Detector releases it) or until Release. Only claims not yet committed are
// kept in memory. It is safe for concurrent use.
type Detector struct {
	db       *DB
	foldCase bool
	mu       sync.Mutex
	files    map[string]owner // k(path) of each claimed file
	folders  map[string]int   // k(folder) of each claimed file's folders: how many claims need it
	idx      *pathIndex       // the state's paths, after Preload
}

// pathIndex holds the state's paths (and their folders) as 128-bit keyed
// hashes of their Key, so that a Claim that cannot collide with the state
// asks the database nothing. A hit only means a collision is possible: the
// database decides.
type pathIndex struct {
	k1, k2  maphash.Seed
	files   [][2]uint64 // sorted
	folders [][2]uint64 // sorted
	more    map[[2]uint64]uint8
}

const (
	idxFile   uint8 = 1
	idxFolder uint8 = 2
)

func (x *pathIndex) key(p string) [2]uint64 {
	k := pathmap.Key(p)
	return [2]uint64{maphash.String(x.k1, k), maphash.String(x.k2, k)}
}

func (x *pathIndex) has(p string, what uint8) bool {
	k := x.key(p)
	if x.more[k]&what != 0 {
		return true
	}
	list := x.files
	if what == idxFolder {
		list = x.folders
	}
	_, ok := slices.BinarySearchFunc(list, k, cmpKey)
	return ok
}

// add notes a path (and its folders) that the state may now hold.
func (x *pathIndex) add(p string) {
	x.more[x.key(p)] |= idxFile
	for _, f := range pathmap.Parents(p) {
		x.more[x.key(f)] |= idxFolder
	}
}

func cmpKey(a, b [2]uint64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// Preload reads every path of the state into memory (32 bytes or so per
// path and folder), so that claims of paths no row can collide with cost
// no query: for runs that claim many paths. Paths released since are added.
func (d *Detector) Preload(ctx context.Context) error {
	d.db.scans.Add(1)
	x := &pathIndex{k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), more: map[[2]uint64]uint8{}}
	rows, err := d.db.sql.QueryContext(ctx, `SELECT path FROM resource`)
	if err != nil {
		return fmt.Errorf("read the paths of %s: %w", d.db.path, err)
	}
	folders := map[[2]uint64]struct{}{}
	var p string
	for rows.Next() {
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return fmt.Errorf("read the paths of %s: %w", d.db.path, err)
		}
		x.files = append(x.files, x.key(p))
		for _, f := range pathmap.Parents(p) {
			folders[x.key(f)] = struct{}{}
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("read the paths of %s: %w", d.db.path, err)
	}
	slices.SortFunc(x.files, cmpKey)
	x.folders = make([][2]uint64, 0, len(folders))
	for k := range folders {
		x.folders = append(x.folders, k)
	}
	slices.SortFunc(x.folders, cmpKey)
	d.mu.Lock()
	d.idx = x
	d.mu.Unlock()
	return nil
}

// mayCollide tells from the index whether path may collide with a row of
// the state; true without an index.
func (d *Detector) mayCollide(path string, parents []string) bool {
	if d.idx == nil {
		return true
	}
	if d.idx.has(path, idxFile) || d.idx.has(path, idxFolder) {
		return true
	}
	for _, p := range parents {
		if d.idx.has(p, idxFile) {
			return true
		}
	}
	return false
}

// NewDetector returns a Detector. caseInsensitive makes paths that differ
// only by case collide (the Store says whether its file system ignores case).
func (db *DB) NewDetector(caseInsensitive bool) *Detector {
	return &Detector{db: db, foldCase: caseInsensitive, files: map[string]owner{}, folders: map[string]int{}}
}

// k is the form in which paths are compared.
func (d *Detector) k(p string) string {
	if d.foldCase {
		return pathmap.Key(p)
	}
	return p
}

// Claim checks that path may be the path of the resource (sourceID, uri) and
// holds it for it, or returns a *CollisionError (or an error reading the
// state). The resource's own row does not collide with it.
func (d *Detector) Claim(ctx context.Context, sourceID int64, uri, path string) error {
	return d.ClaimReplacing(ctx, sourceID, uri, path, "")
}

// ClaimReplacing is Claim for a resource that takes the path over from the
// resource (sourceID, replaced) of the state, whose row the same batch
// removes: that row does not collide with it.
func (d *Detector) ClaimReplacing(ctx context.Context, sourceID int64, uri, path, replaced string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	me := owner{source: sourceID, uri: uri, path: path, replaces: replaced}
	kp := d.k(path)
	if o, ok := d.files[kp]; ok {
		if o.source == sourceID && o.uri == uri {
			return nil
		}
		return d.collision(me, o)
	}
	if d.folders[kp] > 0 {
		for _, o := range d.files {
			if strings.HasPrefix(d.k(o.path), kp+"/") {
				return &CollisionError{Kind: FileFolder, URI: uri, Path: path, OtherURI: o.uri, OtherPath: o.path, OtherSource: o.source}
			}
		}
	}
	parents := pathmap.Parents(path)
	for _, p := range parents {
		if o, ok := d.files[d.k(p)]; ok {
			return &CollisionError{Kind: FileFolder, URI: uri, Path: path, OtherURI: o.uri, OtherPath: o.path, OtherSource: o.source}
		}
	}
	if d.mayCollide(path, parents) {
		if err := d.checkState(ctx, me, parents); err != nil {
			return err
		}
	}
	d.files[kp] = me
	for _, p := range parents {
		d.folders[d.k(p)]++
	}
	return nil
}

func (d *Detector) collision(me, o owner) *CollisionError {
	kind := SamePath
	if o.path != me.path {
		kind = CaseOnly
	}
	return &CollisionError{Kind: kind, URI: me.uri, Path: me.path, OtherURI: o.uri, OtherPath: o.path, OtherSource: o.source}
}

// checkState compares a path with the rows committed to the state: one
// query for the rows at the path and at each of its folders (a file where
// a folder of it must be), one for a file inside it.
func (d *Detector) checkState(ctx context.Context, me owner, parents []string) error {
	key := pathmap.Key(me.path)
	keys := make([]any, 0, 1+len(parents))
	keys = append(keys, key)
	for _, p := range parents {
		keys = append(keys, pathmap.Key(p))
	}
	// Each key's rows in id order, as a query of that key alone gives them.
	rows, err := d.db.query(ctx, `SELECT source_id, uri, path, path_key FROM resource WHERE path_key IN (?`+strings.Repeat(",?", len(parents))+`) ORDER BY path_key, id`, keys...)
	if err != nil {
		return fmt.Errorf("check path %s of %s for collisions: %w", me.path, me.uri, err)
	}
	var at map[string][]owner // by path_key
	for rows.Next() {
		var o owner
		var k string
		if err := rows.Scan(&o.source, &o.uri, &o.path, &k); err != nil {
			rows.Close()
			return fmt.Errorf("check path %s of %s for collisions: %w", me.path, me.uri, err)
		}
		if at == nil {
			at = map[string][]owner{}
		}
		at[k] = append(at[k], o)
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("check path %s of %s for collisions: %w", me.path, me.uri, err)
	}
	for _, o := range at[key] {
		if !me.mine(o) && (o.path == me.path || d.foldCase) {
			return d.collision(me, o)
		}
	}
	// A file where a folder of the path must be: the first row that is
	// that file decides.
	for i, p := range parents {
		for _, o := range at[keys[i+1].(string)] {
			if o.path != p && !d.foldCase {
				continue
			}
			if !me.mine(o) {
				return &CollisionError{Kind: FileFolder, URI: me.uri, Path: me.path, OtherURI: o.uri, OtherPath: o.path, OtherSource: o.source}
			}
			break
		}
	}
	// Files inside the path, as a folder.
	q := `SELECT source_id, uri, path FROM resource WHERE path_key >= ? AND path_key < ?`
	args := []any{key + "/", key + "0"}
	if !d.foldCase {
		q += ` AND substr(path, 1, ?) = ?`
		args = append(args, len(me.path)+1, me.path+"/")
	}
	var o owner
	err = d.db.queryRow(ctx, q+` LIMIT 1`, args...).Scan(&o.source, &o.uri, &o.path)
	if err == nil {
		return &CollisionError{Kind: FileFolder, URI: me.uri, Path: me.path, OtherURI: o.uri, OtherPath: o.path, OtherSource: o.source}
	}
	if !isNoRows(err) {
		return fmt.Errorf("check path %s of %s for collisions: %w", me.path, me.uri, err)
	}
	return nil
}

// Release gives up the claim on path: its write was abandoned, or the state
// now records it.
func (d *Detector) Release(path string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	kp := d.k(path)
	if _, ok := d.files[kp]; !ok {
		return
	}
	delete(d.files, kp)
	if d.idx != nil {
		// It may be in the state now: claims of it ask the database again.
		d.idx.add(path)
	}
	for _, p := range pathmap.Parents(path) {
		kf := d.k(p)
		if d.folders[kf] <= 1 {
			delete(d.folders, kf)
		} else {
			d.folders[kf]--
		}
	}
}

// Claims is how many paths are claimed and not yet released.
func (d *Detector) Claims() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.files)
}

// Holder is a row of the state whose path collides with a path asked about
// (Detector.Holders).
type Holder struct {
	ID, SourceID int64
	URI, Path    string
	Deleted      bool // the Source deleted it (a deletion remembered)
	// Kind says how: SamePath or CaseOnly (the path itself), FileFolder
	// with Below false (a file where a folder of the path must be) or Below
	// true (a file inside the path, as a folder).
	Kind  CollisionKind
	Below bool
}

// Holders returns the rows of the state whose paths collide with path, but
// the resource's own (sourceID, uri): the path itself (or, folding case,
// its key), a file at one of its folders, and one file inside it (when
// there are several, the first by path). It claims nothing.
func (d *Detector) Holders(ctx context.Context, sourceID int64, uri, path string) ([]Holder, error) {
	parents := pathmap.Parents(path)
	d.mu.Lock()
	may := d.mayCollide(path, parents)
	d.mu.Unlock()
	if !may {
		return nil, nil
	}
	var out []Holder
	scan := func(rows interface {
		Next() bool
		Scan(...any) error
	}, keep func(*Holder) bool) error {
		for rows.Next() {
			var h Holder
			var deleted *string
			if err := rows.Scan(&h.ID, &h.SourceID, &h.URI, &h.Path, &deleted); err != nil {
				return err
			}
			h.Deleted = deleted != nil
			if h.SourceID == sourceID && h.URI == uri {
				continue
			}
			if keep(&h) {
				out = append(out, h)
			}
		}
		return nil
	}
	query := func(q string, keep func(*Holder) bool, args ...any) error {
		rows, err := d.db.query(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("check path %s of %s for collisions: %w", path, uri, err)
		}
		err = scan(rows, keep)
		if cerr := closeRows(rows); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("check path %s of %s for collisions: %w", path, uri, err)
		}
		return nil
	}
	const cols = `SELECT id, source_id, uri, path, deleted_at FROM resource`
	err := query(cols+` WHERE path_key = ?`, func(h *Holder) bool {
		switch {
		case h.Path == path:
			h.Kind = SamePath
		case d.foldCase:
			h.Kind = CaseOnly
		default:
			return false
		}
		return true
	}, pathmap.Key(path))
	if err != nil {
		return nil, err
	}
	for _, p := range parents {
		err := query(cols+` WHERE path_key = ?`, func(h *Holder) bool {
			h.Kind = FileFolder
			return h.Path == p || d.foldCase
		}, pathmap.Key(p))
		if err != nil {
			return nil, err
		}
	}
	key := pathmap.Key(path)
	q := cols + ` WHERE path_key >= ? AND path_key < ?`
	args := []any{key + "/", key + "0"}
	if !d.foldCase {
		q += ` AND substr(path, 1, ?) = ?`
		args = append(args, len(path)+1, path+"/")
	}
	err = query(q+` ORDER BY path LIMIT 2`, func(h *Holder) bool {
		h.Kind, h.Below = FileFolder, true
		return true
	}, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}
