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
func place(ctx context.Context, st store.Store, local, tmp string, e *entry, opt Options) {
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
		if e.how, err = put(ctx, f, dst, opt); err != nil {
			failPlace(e, name, err)
			return
		}
		e.digests = bagitDigests(r.Digests)
		return
	}
	placeHashed(ctx, src, f, name, dst, e, opt)
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
// local file is cloned or linked first where it can be, and the bag's file
// is what is read; otherwise the bytes are hashed as they are copied.
func placeHashed(ctx context.Context, src io.Reader, f *os.File, name, dst string, e *entry, opt Options) {
	r := &e.res
	recorded := r.Digests.HashList()
	declared := recorded
	if _, ok := r.Digests.Get("sha-256"); !ok {
		declared = append(slices.Clone(recorded), model.Hash{Alg: "sha-256"})
	}
	v := model.NewVerifier(declared)
	var err error
	e.how = copied
	if f != nil && opt.Link && hardLink(f, dst) {
		e.how = hardLinked
	} else if f != nil && !opt.Copy && clone(f, dst) {
		e.how = reflinked
	}
	if e.how != copied {
		err = hashFile(ctx, dst, v)
	} else {
		err = copyFile(ctxReader{ctx, src}, dst, v)
	}
	if err != nil {
		if e.how != copied {
			os.Remove(dst) // the clone or link made here (copyFile removes what it made)
		}
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
// it: a hard link when Options.Link asks for one, else a reflink where the
// file system has them (unless Options.Copy), else a copy (copy_file_range
// on Linux: the kernel copies, and some file systems clone).
func put(ctx context.Context, f *os.File, dst string, opt Options) (linkKind, error) {
	if opt.Link && hardLink(f, dst) {
		return hardLinked, nil
	}
	if !opt.Copy && clone(f, dst) {
		return reflinked, nil
	}
	return copied, copyFile(ctxChunks{ctx, f}, dst, nil)
}

// copyFile writes src to a new file dst, and to tee when given.
func copyFile(src io.Reader, dst string, tee io.Writer) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	var w io.Writer = out
	if tee != nil {
		w = io.MultiWriter(out, tee)
	}
	if _, err := io.Copy(w, src); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(dst)
		return err
	}
	return nil
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
