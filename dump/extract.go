package dump

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"rsx/scratch"
)

// Extract writes every bitstream the manifest lists to dir, at its manifest
// path (mapped under dir), verifying it on the way; members are never written
// under their ZIP names. dir is created if needed.
//
// A member is written to a temporary file in its destination directory and
// renamed into place only when its length and declared hashes matched; a
// mismatched, oversized or unreadable member leaves any existing file as it
// was. Nothing is written outside dir: every path is checked (see the package
// comment), a symlink already in dir is never followed, and writes go
// through an os.Root. Repeated paths and members beyond Options.MaxTotalBytes
// are refused. The error is for a dir that cannot be used or a cancelled ctx.
func (p *Package) Extract(ctx context.Context, dir string, progress func(done, total int64)) (*Result, error) {
	if dir == "" {
		return nil, errors.New("extract: no destination directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	defer root.Close()
	x := &extractor{root: root, real: real, budget: p.opts.MaxTotalBytes, seen: make(map[string]bool), swept: make(map[string]bool)}
	return p.process(ctx, x, progress, true)
}

// extractor writes members under one destination root.
type extractor struct {
	root   *os.Root
	real   string // the root's path, symlinks resolved
	budget int64  // uncompressed bytes still allowed
	seen   map[string]bool

	mu    sync.Mutex
	swept map[string]bool // directories cleared of stale temporary files
}

// output is a member being written.
type output struct {
	name string // final name, relative to the root, slash-separated
	tmp  string
	file *os.File
}

// admit decides, in manifest order, whether member name of size bytes may be
// written: a path is written once, and the bytes of one extraction are bounded.
func (x *extractor) admit(name string, size int64) string {
	if x.seen[name] {
		return "path repeated: an earlier entry of the manifest already has it"
	}
	x.seen[name] = true
	if size > x.budget {
		return fmt.Sprintf("extracting its %d bytes would pass the limit of bytes written by one extraction", size)
	}
	x.budget -= size
	return ""
}

// begin prepares the destination of member name: checks it, creates its
// directories (refusing symlinks and files in the way) and opens a temporary
// file beside it. reason is why the member is refused. It is safe for
// concurrent use.
func (x *extractor) begin(name string) (*output, string) {
	target := filepath.Join(x.real, filepath.FromSlash(name))
	if rel, err := filepath.Rel(x.real, target); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, "path resolves outside the destination directory"
	}
	dir := path.Dir(name)
	if dir != "." {
		built := ""
		for _, seg := range strings.Split(dir, "/") {
			built = path.Join(built, seg)
			st, err := x.root.Lstat(built)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				if err := x.root.Mkdir(built, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
					return nil, "cannot create directory " + built + ": " + cleanErr(err)
				}
				if st, err = x.root.Lstat(built); err != nil || !st.IsDir() {
					return nil, "cannot create directory " + built
				}
			case err != nil:
				return nil, "cannot inspect " + built + ": " + cleanErr(err)
			case st.Mode()&fs.ModeSymlink != 0:
				return nil, built + " in the destination is a symbolic link; it is not followed"
			case !st.IsDir():
				return nil, built + " in the destination is a file, not a directory"
			}
		}
	}
	if st, err := x.root.Lstat(name); err == nil {
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return nil, "the destination is a symbolic link; it is not followed nor replaced"
		case !st.Mode().IsRegular():
			return nil, "the destination exists and is not a regular file"
		}
	}
	x.sweep(dir)
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, partPrefix+scratch.Self()+"-"+hex.EncodeToString(rnd[:])+partSuffix)
	f, err := x.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, "cannot create a temporary file: " + cleanErr(err)
	}
	return &output{name: name, tmp: tmp, file: f}, ""
}

// Temporary files are named partPrefix + owner + "-" + random + partSuffix,
// the owner being the writing process (scratch.Self), so that a later
// extraction into the same directory can tell a stale one from one being
// written.
const (
	partPrefix = ".rsx-"
	partSuffix = ".part"
)

// sweep removes, once per extraction and directory, the temporary files
// that extractions killed outright (SIGKILL, a crash) left in dir: those
// whose owner process no longer lives. Files of live processes, and names
// it does not recognise, are left alone.
func (x *extractor) sweep(dir string) {
	x.mu.Lock()
	done := x.swept[dir]
	x.swept[dir] = true
	x.mu.Unlock()
	if done {
		return
	}
	f, err := x.root.Open(dir)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, name := range names {
		if owner, ok := partOwner(name); ok && scratch.OwnerGone(owner) {
			_ = x.root.Remove(path.Join(dir, name))
		}
	}
}

// partOwner reads the owner from a temporary file's name.
func partOwner(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, partPrefix)
	if !ok {
		return "", false
	}
	if rest, ok = strings.CutSuffix(rest, partSuffix); !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

// commit closes the temporary file and renames it into place.
func (x *extractor) commit(o *output) string {
	if err := o.file.Close(); err != nil {
		_ = x.root.Remove(o.tmp)
		return "write: " + cleanErr(err)
	}
	if err := x.root.Rename(o.tmp, o.name); err != nil {
		_ = x.root.Remove(o.tmp)
		return "cannot move into place: " + cleanErr(err)
	}
	return ""
}

// abort drops the temporary file.
func (x *extractor) abort(o *output) {
	_ = o.file.Close()
	_ = x.root.Remove(o.tmp)
}

// cleanErr is err's message without the operation and path that os adds.
func cleanErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
