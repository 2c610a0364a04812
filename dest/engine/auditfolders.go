package engine

import (
	"context"
	"path"
	"slices"
	"strings"

	"rsx/dest/store"
)

// maxOpenedFolders bounds the folders an audit counts the files opened of:
// past it (a copy of a folder a file), the files of DEST are counted whole
// (store.FileCounter) instead.
const maxOpenedFolders = 1 << 16

// openedFolders is how many files an audit's workers opened in each folder
// of DEST, so that the folders' names alone tell that DEST holds no other
// file (noExtraFiles): where every folder the files opened are in holds as
// many entries as files opened in it and folders below it that hold some,
// its entries are those and nothing else, and the folders above too. It
// spares counting the files of DEST in a walk of their kinds (an lstat a
// file where the file system does not give them: a tenth of an audit's CPU).
type openedFolders struct {
	dirs map[string]int64
	off  bool // not counted: too many folders, or a path that is not clean
}

// noteOpened counts a file opened at p (a path of the state).
func (w *auditWorker) noteOpened(p string) {
	if w.dirs == nil {
		return
	}
	if p == "" || p == "." || p == ".." || path.IsAbs(p) || strings.HasPrefix(p, "../") || path.Clean(p) != p {
		w.dirs = nil
		return
	}
	d := path.Dir(p)
	if _, ok := w.dirs[d]; !ok && len(w.dirs) >= maxOpenedFolders {
		w.dirs = nil
		return
	}
	w.dirs[d]++
}

// merge adds a worker's counts (nil: it stopped counting).
func (f *openedFolders) merge(dirs map[string]int64) {
	if f.off {
		return
	}
	if dirs == nil {
		f.off, f.dirs = true, nil
		return
	}
	if f.dirs == nil {
		f.dirs = make(map[string]int64, len(dirs))
	}
	for d, n := range dirs {
		f.dirs[d] += n
	}
	if len(f.dirs) > maxOpenedFolders {
		f.off, f.dirs = true, nil
	}
}

// only reports whether the folders of the files opened hold those files and
// the folders leading to them, and nothing else, up to the Source's
// folders (parts; those above them are not the Source's): then its part of
// DEST holds no other entry. false when it cannot tell (a folder that
// cannot be read, a count that differs: an extra entry, an empty folder, a
// link).
func (f *openedFolders) only(ctx context.Context, nc store.NameCounter, parts []string) (bool, error) {
	if f.off || len(f.dirs) == 0 {
		return false, nil
	}
	want := make(map[string]int64, len(f.dirs)+8)
	// Every folder that holds a file opened, and those above it, each
	// counted once as an entry of its parent.
	var add func(d string)
	add = func(d string) {
		if _, ok := want[d]; ok {
			return
		}
		want[d] = 0
		if d != "." && !slices.Contains(parts, d) {
			p := path.Dir(d)
			add(p)
			want[p]++
		}
	}
	for d := range f.dirs {
		add(d)
	}
	for d, n := range f.dirs {
		want[d] += n
	}
	for d, n := range want {
		got, err := nc.CountNames(ctx, d)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return false, nil
		}
		if got != n {
			return false, nil
		}
	}
	return true, nil
}
