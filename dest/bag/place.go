package bag

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

// place puts one file in the bag's payload and fills in its digests, or says
// why it cannot.
func (w *writer) place(ctx context.Context, e *entry) {
	st, tmp, opt := w.st, w.tmp, w.opt
	if ctx.Err() != nil {
		e.err = ctx.Err()
		return
	}
	r := &e.res
	if err := store.CheckPath(r.Path); err != nil {
		e.refused = "its path cannot be in a bag: " + err.Error()
		return
	}
	name := PayloadName(r.Path)
	dst := filepath.Join(tmp, "data", filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		failPlace(e, name, err)
		return
	}
	if !r.DamagedAt.IsZero() {
		e.refused = "an audit found it damaged or gone (" + r.DamagedAt.UTC().Format(time.RFC3339) + "): run rsx sync to fetch it again"
		return
	}
	fi, err := st.Stat(ctx, r.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.refused = "missing from the copy: run rsx sync to fetch it again"
		return
	case err != nil:
		e.refused = err.Error()
		return
	case r.Length >= 0 && fi.Size != r.Length:
		e.refused = fmt.Sprintf("%d bytes where the state records %d: run rsx sync to fetch it again", fi.Size, r.Length)
		return
	}
	src, err := st.Open(ctx, r.Path)
	if err != nil {
		e.refused = err.Error()
		return
	}
	defer src.Close()
	f, _ := src.(*os.File)
	_, hasSHA256 := r.Digests.Get("sha-256")
	quickOK := f != nil && !r.FileMTime.IsZero() && fi.ModTime.Equal(r.FileMTime)
	if quickOK && hasSHA256 && !opt.Verify {
		// The record stands: the file goes in as it is, unread.
		if e.how, err = w.put(ctx, f, dst); err != nil {
			failPlace(e, name, err)
			return
		}
		e.digests = bagitDigests(r.Digests)
		return
	}
	w.placeHashed(ctx, src, f, name, dst, e)
}

// failPlace records why a file could not be put in the bag: a name another
// file holds (a path of an older copy holding a character the bag escapes,
// beside its escaped twin), or one too long for the file system, keeps
// that file out; anything else stops the bag.
func failPlace(e *entry, name string, err error) {
	switch {
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENOTDIR):
		e.refused = "its name in the bag, " + name + ", is another file's"
	case errors.Is(err, syscall.ENAMETOOLONG):
		e.refused = "its name in the bag, " + name + ", is too long for the file system"
	default:
		e.err = fmt.Errorf("bag: %s: %w", e.res.Path, err)
	}
}

// placeHashed puts a file whose record is not trusted as it stands in the
// bag, reading it once: its bytes are hashed with every recorded algorithm
// (and SHA-256 when none is recorded) and checked against the record. A
// local file is linked or cloned first where it can be, and the bag's file
// is what is read; otherwise the bytes are hashed as they are copied.
func (w *writer) placeHashed(ctx context.Context, src io.Reader, f *os.File, name, dst string, e *entry) {
	r := &e.res
	recorded := r.Digests.HashList()
	declared := recorded
	if _, ok := r.Digests.Get("sha-256"); !ok {
		declared = append(slices.Clone(recorded), model.Hash{Alg: "sha-256"})
	}
	v := model.NewVerifier(declared)
	var out *os.File
	var err error
	if f != nil {
		e.how, out, err = w.share(f, dst)
	} else {
		e.how, out, err = copied, nil, nil
		out, err = os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if err == nil {
		if out != nil {
			err = copyInto(out, dst, ctxReader{ctx, src}, v)
		} else if err = hashFile(ctx, dst, v); err != nil {
			os.Remove(dst) // the link or clone made here
		}
	}
	if err != nil {
		failPlace(e, name, err)
		return
	}
	if reason := mismatch(v, r, recorded); reason != "" {
		os.Remove(dst)
		e.refused = reason
		return
	}
	e.hashed = true
	e.digests = map[string]string{}
	for _, hr := range v.Results() {
		if hr.Supported {
			for _, a := range bagitAlgs {
				if a.state == hr.Alg {
					e.digests[a.bagit] = hr.Actual
				}
			}
		}
	}
}

// hashFile reads the file at p into w.
func hashFile(ctx context.Context, p string, w io.Writer) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, ctxReader{ctx, f})
	return err
}

// mismatch says how the bytes read differ from the record, "" when they do
// not.
func mismatch(v *model.Verifier, r *state.Resource, recorded model.HashList) string {
	if r.Length >= 0 && v.Bytes() != r.Length {
		return fmt.Sprintf("%d bytes read where the state records %d: run rsx sync to fetch it again", v.Bytes(), r.Length)
	}
	for i, hr := range v.Results() {
		if i >= len(recorded) {
			break
		}
		if hr.Supported && !hr.Match {
			return fmt.Sprintf("its %s is %s where the state records %s: the copy is damaged; run rsx sync to fetch it again", hr.Alg, hr.Actual, hr.Expected)
		}
	}
	return ""
}

// bagitDigests are the recorded digests under BagIt's algorithm names.
func bagitDigests(d state.Digests) map[string]string {
	out := map[string]string{}
	d.Each(func(alg, hex string) {
		for _, a := range bagitAlgs {
			if a.state == alg {
				out[a.bagit] = hex
			}
		}
	})
	return out
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

type linkKind int

const (
	copied linkKind = iota
	reflinked
	hardLinked
)

// put makes dst the content of the open local file f without reading
// it in Go: shared (share), else copied (copy_file_range on Linux: the
// kernel copies, and some file systems clone).
func (w *writer) put(ctx context.Context, f *os.File, dst string) (linkKind, error) {
	kind, out, err := w.share(f, dst)
	if err != nil || out == nil {
		return kind, err
	}
	return copied, copyInto(out, dst, ctxChunks{ctx, f}, nil)
}

// share makes dst share the bytes of the open local file f: a hard link
// when Options.Link asks for one, a reflink where the file system has them
// (unless Options.Copy). Otherwise it returns dst made and empty, open, for
// the caller to copy into. A file system that refuses a clone is not asked
// again for this bag: on ext4 or tmpfs every clone fails, and each try
// costs the calls of a file.
func (w *writer) share(f *os.File, dst string) (linkKind, *os.File, error) {
	if w.opt.Link && hardLink(f, dst) {
		return hardLinked, nil, nil
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return copied, nil, err
	}
	if !w.opt.Copy && !w.noClone.Load() {
		if err := clone(out, f); err == nil {
			if err := out.Close(); err != nil {
				os.Remove(dst)
				return copied, nil, err
			}
			return reflinked, nil, nil
		}
		w.noClone.Store(true)
	}
	return copied, out, nil
}

// copyInto writes src into out, the new file dst, and to tee when given;
// it closes out, and removes dst when it fails.
func copyInto(out *os.File, dst string, src io.Reader, tee io.Writer) error {
	var w io.Writer = out
	if tee != nil {
		w = io.MultiWriter(out, tee)
	}
	_, err := io.Copy(w, src)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

// ctxChunks is a file read in chunks of copyChunk, each a WriteTo of a
// LimitedReader (which *os.File copies with copy_file_range), the context
// checked between them: a large file copied without reading it in Go can
// still be interrupted.
type ctxChunks struct {
	ctx context.Context
	f   *os.File
}

const copyChunk = 64 << 20

func (c ctxChunks) Read(p []byte) (int, error) { return c.f.Read(p) }

func (c ctxChunks) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if err := c.ctx.Err(); err != nil {
			return total, err
		}
		n, err := io.Copy(w, &io.LimitedReader{R: c.f, N: copyChunk})
		total += n
		if err != nil || n < copyChunk {
			return total, err
		}
	}
}
