package dump

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"rsx/fetch"
	"rsx/model"
)

// A dump read from a local file names its packages, the parts of an index
// and the manifest copies by paths relative to itself, or by URLs whose
// packages may have been saved beside it. They are read from the folder of
// that file and below only, through an os.Root: a location that is
// absolute, or that ".." (or a symbolic link) leads out of the folder, is
// refused, never read. A package read from the disk is checked against its
// dump entry exactly as a downloaded one.

// LocationError is a location in a local dump that rsx refuses to read:
// absolute, or leading out of the dump's folder.
type LocationError struct {
	Loc    string // as the dump writes it
	Dir    string // the dump's folder
	Reason string
}

func (e *LocationError) Error() string {
	return fmt.Sprintf("refused %q: %s; a local dump's packages, parts and manifest copies are read from its folder %s and below only",
		e.Loc, e.Reason, e.Dir)
}

// folder is the directory of a local dump, the only place its files are
// read from.
type folder struct {
	dir   string   // as given: the paths shown are under it
	named string   // dir made absolute, for messages
	root  *os.Root // every file is opened through it
}

// openFolder opens the folder of the local dump at dumpPath.
func openFolder(dumpPath string) (*folder, error) {
	dir := filepath.Dir(dumpPath)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the folder of %s: %w", dumpPath, err)
	}
	named, err := filepath.Abs(dir)
	if err != nil {
		named = dir
	}
	return &folder{dir: dir, named: named, root: root}, nil
}

func (f *folder) Close() error { return f.root.Close() }

// resolve turns loc, written in the document at base (a path under the
// folder), into the path of the file it names under the folder; an http(s)
// URL comes back as it is. A location that is absolute or leads out of the
// folder is a *LocationError.
func (f *folder) resolve(base, loc string) (string, error) {
	loc = strings.TrimSpace(loc)
	if model.IsHTTPURL(loc) {
		return loc, nil
	}
	refuse := func(reason string) (string, error) {
		return "", &LocationError{Loc: loc, Dir: f.named, Reason: reason}
	}
	u, err := url.Parse(loc)
	switch {
	case err != nil:
		return refuse("it is not a URI reference (" + err.Error() + ")")
	case strings.EqualFold(u.Scheme, "file"):
		return refuse("a file URL is an absolute path")
	case u.Scheme != "":
		return refuse("it is neither a relative path nor an http(s) URL")
	case u.Host != "" || strings.HasPrefix(u.Path, "/"):
		return refuse("it is an absolute path")
	case u.Path == "":
		return refuse("it names no file")
	case strings.Contains(u.Path, `\`):
		return refuse("it contains a backslash")
	}
	from, err := f.rel(base)
	if err != nil {
		return "", err
	}
	rel := path.Join(path.Dir(filepath.ToSlash(from)), u.Path)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return refuse(`".." leads out of the folder`)
	}
	if rel == "." || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return refuse("it names no file in the folder")
	}
	return filepath.Join(f.dir, filepath.FromSlash(rel)), nil
}

// rel is p, a path under the folder, relative to it.
func (f *folder) rel(p string) (string, error) {
	r, err := filepath.Rel(f.dir, p)
	if err != nil || !filepath.IsLocal(r) {
		return "", &LocationError{Loc: p, Dir: f.named, Reason: "it is outside the folder"}
	}
	return r, nil
}

// open opens the regular file at p, a path under the folder. A symbolic
// link out of the folder fails (os.Root); a device or a pipe is refused
// before it is opened, so that nothing blocks.
func (f *folder) open(p string) (*os.File, int64, error) {
	r, err := f.rel(p)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.root.Stat(r)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("open %s: not a regular file", p)
	}
	file, err := f.root.Open(r)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", p, err)
	}
	return file, st.Size(), nil
}

// beside finds a copy of the package at URL u in the folder: the last
// segments of its path, longest first ("resourcedump/part-0001.zip", then
// "part-0001.zip"), as a Source's dump is saved with its packages. It
// returns the path of the regular file found, "" when there is none.
func (f *folder) beside(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Path == "" {
		return ""
	}
	segs := strings.Split(strings.Trim(path.Clean(pu.Path), "/"), "/")
	for n := min(3, len(segs)); n >= 1; n-- {
		rel := path.Join(segs[len(segs)-n:]...)
		if !filepath.IsLocal(filepath.FromSlash(rel)) || strings.Contains(rel, `\`) {
			continue
		}
		if st, err := f.root.Stat(filepath.FromSlash(rel)); err == nil && st.Mode().IsRegular() {
			return filepath.Join(f.dir, filepath.FromSlash(rel))
		}
	}
	return ""
}

// Beside finds a copy of the package at URL pkg in the folder of the local
// dump at dumpPath, as the explorer opens a package listed in a dump saved
// with its packages: the path of the regular file found in that folder or
// below (never through a link out of it), "" when there is none.
func Beside(dumpPath, pkg string) string {
	f, err := openFolder(dumpPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	return f.beside(pkg)
}

// folderFetcher reads the paths of a local dump from its folder, and its
// URLs from the network (next), a package from its copy in the folder
// when there is one.
type folderFetcher struct {
	f    *folder
	next fetch.Fetcher
}

// Get reads a document: a part of an index or a manifest copy.
func (ff folderFetcher) Get(ctx context.Context, u string) (*fetch.Response, error) {
	if model.IsHTTPURL(u) {
		return ff.next.Get(ctx, u)
	}
	file, _, err := ff.f.open(u)
	if err != nil {
		return nil, err
	}
	return &fetch.Response{URL: u, Status: 200, Body: file}, nil
}

// DownloadWith reads a package into w, bounded by o.MaxBytes.
func (ff folderFetcher) DownloadWith(ctx context.Context, u string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	p := u
	if model.IsHTTPURL(u) {
		if p = ff.f.beside(u); p == "" {
			return ff.next.DownloadWith(ctx, u, w, o)
		}
	}
	file, size, err := ff.f.open(p)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if o.MaxBytes > 0 && size > o.MaxBytes {
		return nil, &fetch.TooLargeError{URL: p, Limit: o.MaxBytes}
	}
	var r io.Reader = file
	if o.MaxBytes > 0 {
		r = io.LimitReader(file, o.MaxBytes+1)
	}
	done := int64(0)
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, rerr := r.Read(buf)
		if n > 0 {
			done += int64(n)
			if o.MaxBytes > 0 && done > o.MaxBytes {
				return nil, &fetch.TooLargeError{URL: p, Limit: o.MaxBytes}
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return nil, fmt.Errorf("read %s: %w", p, err)
			}
			if o.Progress != nil {
				o.Progress(done, size)
			}
		}
		if errors.Is(rerr, io.EOF) {
			return nil, nil
		}
		if rerr != nil {
			return nil, fmt.Errorf("read %s: %w", p, rerr)
		}
	}
}
