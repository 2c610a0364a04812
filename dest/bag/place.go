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
	dst := filepath.Join(tmp, "data", filepath.FromSlash(r.Path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		e.err = fmt.Errorf("bag: %w", err)
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
	recorded := r.Digests.HashList()
	_, hasSHA256 := r.Digests.Get("sha-256")
	quickOK := local != "" && !r.FileMTime.IsZero() && fi.ModTime.Equal(r.FileMTime)
	mustHash := opt.Verify || !hasSHA256 || !quickOK || local == ""

	src, err := st.Open(ctx, r.Path)
	if err != nil {
		e.refused = err.Error()
		return
	}
	defer src.Close()

	if !mustHash {
		e.how, err = linkOrCopy(src, dst, opt.Copy, nil)
		if err != nil {
			e.err = fmt.Errorf("bag: %s: %w", r.Path, err)
			return
		}
		e.digests = bagitDigests(r.Digests)
		return
	}

	// Read the bytes once: hash them with every recorded algorithm (and
	// SHA-256 when none is recorded), and copy them when the file cannot be
	// linked (or is a bucket's object).
	declared := recorded
	if !hasSHA256 {
		declared = append(slices.Clone(recorded), model.Hash{Alg: "sha-256"})
	}
	v := model.NewVerifier(declared)
	if local != "" && !opt.Copy {
		if _, err := io.Copy(v, ctxReader{ctx, src}); err != nil {
			e.err = fmt.Errorf("bag: read %s: %w", r.Path, err)
			return
		}
		if f, ok := src.(*os.File); ok {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				e.err = fmt.Errorf("bag: read %s: %w", r.Path, err)
				return
			}
		}
		if reason := mismatch(v, r, recorded); reason != "" {
			e.refused = reason
			return
		}
		e.how, err = linkOrCopy(src, dst, false, nil)
	} else {
		e.how, err = linkOrCopy(ctxReader{ctx, src}, dst, true, v)
		if err == nil {
			if reason := mismatch(v, r, recorded); reason != "" {
				os.Remove(dst)
				e.refused = reason
				return
			}
		}
	}
	if err != nil {
		e.err = fmt.Errorf("bag: %s: %w", r.Path, err)
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

// linkOrCopy makes dst the content of src: a reflink or a hard link of an
// open local file where it can (unless copyOnly), else a copy, which also
// feeds tee when given.
func linkOrCopy(src io.Reader, dst string, copyOnly bool, tee io.Writer) (linkKind, error) {
	if f, ok := src.(*os.File); ok && !copyOnly {
		if kind, ok := link(f, dst); ok {
			return kind, nil
		}
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	w := io.Writer(out)
	if tee != nil {
		w = io.MultiWriter(out, tee)
	}
	if _, err := io.Copy(w, src); err != nil {
		out.Close()
		os.Remove(dst)
		return 0, err
	}
	if err := out.Close(); err != nil {
		os.Remove(dst)
		return 0, err
	}
	return copied, nil
}
