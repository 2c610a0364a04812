package dump

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"rsx/model"
)

// Result is what Verify or Extract found. Paths are manifest paths as
// written ("/resources/res1"), or member names for unlisted members.
type Result struct {
	Verified   int        // bitstreams whose length and declared hashes matched (and, for Extract, that were written)
	Extracted  int        // files written by Extract
	Bytes      int64      // uncompressed bytes read from members
	Mismatched []Mismatch // a declared length or hash that the bitstream does not have
	Missing    []string   // manifest paths with no member
	Unlisted   []string   // members the manifest does not mention (manifest.xml and directories aside)
	Refused    []Refusal  // paths and members not read or not written, and why
	Deleted    []string   // locs of change="deleted" entries, which have no bitstream

	// Written is the bytes of the files Extract wrote (members refused or
	// mismatched are not counted).
	Written int64
	// Unverifiable are the manifest paths of bitstreams that were read (and,
	// for Extract, written) but whose entry declares neither a length nor a
	// hash rsx can compute: there was nothing to verify them against, so
	// they are not counted as Verified.
	Unverifiable []string
}

// Mismatch is a bitstream that differs from what the manifest declares.
type Mismatch struct {
	Path     string
	Loc      string
	What     string // "length" or a hash algorithm: "md5", "sha-256", …
	Expected string // as declared
	Actual   string // length in bytes, or digest in lower-case hex
}

// Refusal is a path or member that was not read or not written.
type Refusal struct {
	Path   string // manifest path, or member name
	Loc    string // the entry's loc, "" for a member the manifest does not list
	Reason string
}

// OK reports whether nothing is wrong: no mismatch, no missing bitstream, no
// refusal. Unlisted members are not errors.
func (r *Result) OK() bool {
	return len(r.Mismatched) == 0 && len(r.Missing) == 0 && len(r.Refused) == 0
}

// item is one bitstream the manifest expects: an entry's rs:md path, or the
// path of one of its rs:ln links (a patch shipped in a Change Dump package).
type item struct {
	loc       string
	path      string // as written
	name      string // member name; "" when refused
	reason    string // why the path is refused
	hash      model.HashList
	length    int64
	hasLength bool
	optional  bool // a deleted entry's path: no member needed
}

// verifiable tells whether the item declares something its bitstream can
// be checked against: a length, or a hash in an algorithm rsx computes.
func (it *item) verifiable() bool {
	if it.hasLength {
		return true
	}
	for _, h := range it.hash {
		if model.SupportedHash(h.Alg) {
			return true
		}
	}
	return false
}

// plan lists the bitstreams the manifest expects, the entries that cannot be
// located and the deleted ones.
func (p *Package) plan(res *Result) []item {
	var items []item
	changeDump := p.Manifest.MD.Capability == model.CapChangeDumpManifest
	for i := range p.Manifest.Entries {
		e := &p.Manifest.Entries[i]
		deleted := e.MD.Change == model.ChangeDeleted
		if deleted {
			res.Deleted = append(res.Deleted, e.Loc)
		}
		switch {
		case e.MD.HasPath && !(deleted && e.MD.Path == ""):
			it := item{loc: e.Loc, path: e.MD.Path, hash: e.MD.Hash, length: e.MD.Length, hasLength: e.MD.LengthOK, optional: deleted}
			it.name, it.reason = model.PackageMember(e.MD.Path)
			items = append(items, it)
		case deleted && changeDump:
		default:
			res.Refused = append(res.Refused, Refusal{Loc: e.Loc,
				Reason: "entry " + strconv.Itoa(i) + " has no path attribute: its bitstream cannot be located in the package"})
		}
		for _, l := range e.Links {
			if !l.HasPath {
				continue
			}
			it := item{loc: l.Href, path: l.Path, hash: l.Hash, length: l.Length, hasLength: l.LengthOK}
			it.name, it.reason = model.PackageMember(l.Path)
			items = append(items, it)
		}
	}
	return items
}

// Verify reads every bitstream the manifest lists, in one streaming pass per
// member, and compares its length and digests with the declared ones.
// Members are read by up to GOMAXPROCS goroutines; progress, when not nil,
// receives the uncompressed bytes read and the total expected, one call at a
// time. The error is only for a cancelled ctx; everything found in the
// package is in the Result, in manifest order.
func (p *Package) Verify(ctx context.Context, progress func(done, total int64)) (*Result, error) {
	return p.process(ctx, nil, progress, true)
}

// outcome is what became of one item.
type outcome struct {
	missing bool
	reason  string // refused, and why
	mism    []Mismatch
	ok      bool // verified (and written, when extracting)
	n       int64
}

// process verifies, and extracts through x when x is not nil. Without read
// it only checks what needs no reading of bitstreams. Members are read by up
// to GOMAXPROCS workers; the Result lists everything in manifest order.
func (p *Package) process(ctx context.Context, x *extractor, progress func(done, total int64), read bool) (*Result, error) {
	res := &Result{}
	if n := len(p.Members); n > p.opts.MaxMembers {
		res.Refused = append(res.Refused, Refusal{Reason: fmt.Sprintf(
			"the package has %d members, more than the limit of %d: nothing was read", n, p.opts.MaxMembers)})
		return res, nil
	}
	items := p.plan(res)
	outs := make([]outcome, len(items))
	files := make([]*zip.File, len(items)) // the member to read, nil when there is none to read
	listed := make(map[string]bool, len(items))
	var total int64
	for i := range items {
		it, o := &items[i], &outs[i]
		if it.reason != "" {
			o.reason = "path " + it.reason
			continue
		}
		listed[it.name] = true
		idx := p.byName[it.name]
		switch {
		case len(idx) == 0:
			o.missing = !it.optional
			continue
		case len(idx) > 1:
			o.reason = fmt.Sprintf("the package has %d members named %q: which one is meant is ambiguous", len(idx), it.name)
			continue
		}
		f := p.zr.File[idx[0]]
		if why := p.memberRefusal(f); why != "" {
			o.reason = "member " + why
			continue
		}
		if !read {
			continue
		}
		if x != nil {
			if o.reason = x.admit(it.name, int64(f.UncompressedSize64)); o.reason != "" {
				continue
			}
		}
		files[i] = f
		total += int64(f.UncompressedSize64)
	}
	if read {
		if err := p.readAll(ctx, x, items, files, outs, total, progress); err != nil {
			return res, err
		}
	}
	for i := range items {
		it, o := &items[i], &outs[i]
		res.Bytes += o.n
		res.Mismatched = append(res.Mismatched, o.mism...)
		switch {
		case o.missing:
			res.Missing = append(res.Missing, it.path)
		case o.reason != "":
			res.Refused = append(res.Refused, Refusal{Path: it.path, Loc: it.loc, Reason: o.reason})
		case o.ok:
			if it.verifiable() {
				res.Verified++
			} else {
				res.Unverifiable = append(res.Unverifiable, it.path)
			}
			if x != nil {
				res.Extracted++
				res.Written += o.n
			}
		}
	}
	for _, f := range p.zr.File {
		if f.Name == ManifestName || listed[f.Name] || (f.Mode().IsDir() && strings.HasSuffix(f.Name, "/")) {
			continue
		}
		res.Unlisted = append(res.Unlisted, f.Name)
		why := model.UnsafeMemberName(f.Name)
		if why == "" {
			why = p.memberRefusal(f)
		}
		if why != "" && !strings.HasPrefix(why, "declares") && !strings.HasPrefix(why, "compression") {
			res.Refused = append(res.Refused, Refusal{Path: f.Name, Reason: "unlisted member " + why})
		}
	}
	return res, nil
}

// readAll reads the members in files (verifying, and writing through x when
// x is not nil) with up to GOMAXPROCS workers, filling outs.
func (p *Package) readAll(ctx context.Context, x *extractor, items []item, files []*zip.File, outs []outcome, total int64, progress func(done, total int64)) error {
	var (
		mu   sync.Mutex
		done int64
		next atomic.Int64
		wg   sync.WaitGroup
	)
	count := func(n int64) {
		if progress == nil {
			return
		}
		mu.Lock()
		done += n
		progress(done, total)
		mu.Unlock()
	}
	workers := 0
	for _, f := range files {
		if f != nil {
			workers++
		}
	}
	workers = min(workers, runtime.GOMAXPROCS(0))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 256<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				if files[i] == nil {
					continue
				}
				outs[i] = p.readOne(ctx, x, &items[i], files[i], buf, count)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// readOne verifies one member, and writes it through x when x is not nil.
func (p *Package) readOne(ctx context.Context, x *extractor, it *item, f *zip.File, buf []byte, count func(int64)) outcome {
	if s := p.streamed[f]; x == nil && s != nil && sameHashes(s.declared, it.hash) {
		// Verified as it downloaded: what stream would find.
		count(s.usize)
		o := outcome{n: s.usize}
		if it.hasLength && s.usize != it.length {
			o.mism = append(o.mism, Mismatch{Path: it.path, Loc: it.loc, What: "length",
				Expected: strconv.FormatInt(it.length, 10), Actual: strconv.FormatInt(s.usize, 10)})
		}
		for _, r := range s.results {
			if r.Supported && !r.Match {
				o.mism = append(o.mism, Mismatch{Path: it.path, Loc: it.loc, What: r.Alg, Expected: r.Expected, Actual: r.Actual})
			}
		}
		o.ok = len(o.mism) == 0
		return o
	}
	var w io.Writer
	var out *output
	if x != nil {
		var reason string
		if out, reason = x.begin(it.name); reason != "" {
			return outcome{reason: reason}
		}
		w = out.file
	}
	n, mism, reason, err := p.stream(ctx, f, it, w, buf, count)
	if out != nil {
		if err == nil && reason == "" && len(mism) == 0 {
			reason = x.commit(out)
		} else {
			x.abort(out)
		}
	}
	if err != nil {
		return outcome{reason: "cancelled", n: n}
	}
	return outcome{n: n, mism: mism, reason: reason, ok: reason == "" && len(mism) == 0}
}

// memberRefusal tells why a member is not read, "" when it may be.
func (p *Package) memberRefusal(f *zip.File) string {
	m := f.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return "is a symbolic link"
	case m.IsDir():
		return "is a directory"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "is a device file"
	case !m.IsRegular():
		return "is not a regular file (" + m.Type().String() + ")"
	}
	if f.UncompressedSize64 > uint64(p.opts.MaxMemberBytes) {
		return fmt.Sprintf("declares %d bytes uncompressed, beyond the limit of %d", f.UncompressedSize64, p.opts.MaxMemberBytes)
	}
	if f.UncompressedSize64 > ratioFloor {
		if r := f.UncompressedSize64 / max(f.CompressedSize64, 1); r > uint64(p.opts.MaxRatio) {
			return fmt.Sprintf("compression ratio %d:1 is beyond %d:1 (a zip bomb?)", r, p.opts.MaxRatio)
		}
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return fmt.Sprintf("uses compression method %d, which is not supported", f.Method)
	}
	return ""
}

// stream reads member f through the digests of it, copying to w when w is not
// nil. It stops past the member's declared size. reason is why the member
// could not be read (corrupt data, more bytes than declared, a write error);
// err is ctx's error only.
func (p *Package) stream(ctx context.Context, f *zip.File, it *item, w io.Writer, buf []byte, count func(int64)) (n int64, mism []Mismatch, reason string, err error) {
	rc, oerr := f.Open()
	if oerr != nil {
		return 0, nil, "member cannot be read: " + oerr.Error(), nil
	}
	defer rc.Close()
	v := model.NewVerifier(it.hash)
	limit := int64(f.UncompressedSize64)
	for {
		if err := ctx.Err(); err != nil {
			return n, nil, "", err
		}
		k, rerr := rc.Read(buf)
		if k > 0 {
			if n+int64(k) > limit {
				return n, nil, "member holds more bytes than its declared size of " + strconv.FormatInt(limit, 10), nil
			}
			v.Write(buf[:k])
			if w != nil {
				if _, werr := w.Write(buf[:k]); werr != nil {
					return n, nil, "write: " + werr.Error(), nil
				}
			}
			n += int64(k)
			count(int64(k))
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if errors.Is(rerr, context.Canceled) || errors.Is(rerr, context.DeadlineExceeded) {
				return n, nil, "", rerr
			}
			if errors.Is(rerr, zip.ErrFormat) { // archive/zip read past the declared size
				return n, nil, "member holds more bytes than its declared size of " + strconv.FormatInt(limit, 10), nil
			}
			return n, nil, "member cannot be read: " + rerr.Error(), nil
		}
	}
	if it.hasLength && n != it.length {
		mism = append(mism, Mismatch{Path: it.path, Loc: it.loc, What: "length",
			Expected: strconv.FormatInt(it.length, 10), Actual: strconv.FormatInt(n, 10)})
	}
	for _, r := range v.Results() {
		if r.Supported && !r.Match {
			mism = append(mism, Mismatch{Path: it.path, Loc: it.loc, What: r.Alg, Expected: r.Expected, Actual: r.Actual})
		}
	}
	return n, mism, "", nil
}
