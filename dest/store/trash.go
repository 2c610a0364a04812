package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

// TrashDir is where a sync with --delete moves the stray files of a copy
// (files no resource owns): DEST/.rsx/trash/NAME/PATH, NAME a folder of each
// run (TrashName), PATH where the file was. The folder is the list of what
// the run moved; rsx trash lists and empties it.
const TrashDir = ReservedDir + "/trash"

// TrashName is the name of the trash folder of run id, begun at t:
// 20261127T170211Z-run-42 (sorted by name, the folders are in the order
// they were made).
func TrashName(t time.Time, id int64) string {
	return t.UTC().Format(trashTime) + "-run-" + strconv.FormatInt(id, 10)
}

const trashTime = "20060102T150405Z"

// TrashTime is when the trash folder name was made (TrashName); ok is
// false for a name TrashName did not make.
func TrashTime(name string) (t time.Time, ok bool) {
	stamp, _, found := strings.Cut(name, "-run-")
	if !found {
		return time.Time{}, false
	}
	t, err := time.Parse(trashTime, stamp)
	return t, err == nil
}

// checkTrashName refuses a name that is not one folder's.
func checkTrashName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("trash folder %q: not a folder's name", name)
	}
	return nil
}

// TrashFolder is one folder of the trash: what one run moved there.
type TrashFolder struct {
	Name  string    // its name under TrashDir (TrashName)
	Time  time.Time // when it was made, from its name (zero: a name rsx did not make)
	Files int
	Bytes int64
}

// A FolderWalker lists the files under one folder of the copy ("" for the
// whole copy), as Walk lists them all: a folder's files are walked without
// the rest of DEST. A folder that does not exist has none.
type FolderWalker interface {
	WalkFolder(ctx context.Context, folder string, fn func(FileInfo) error) error
}

// A Trasher moves files of the copy to the trash (TrashDir), and lists and
// empties it.
type Trasher interface {
	// Trash moves the file at path to TrashDir/name/path (a folder's
	// rename, a bucket's server-side copy then removal), and removes the
	// folders it leaves empty, as Remove does. A file that is not there
	// gives an error that wraps fs.ErrNotExist.
	Trash(ctx context.Context, name, path string) error
	// TrashFolders lists the folders of the trash, by name (oldest first).
	TrashFolders(ctx context.Context) ([]TrashFolder, error)
	// EmptyTrash removes the folder name of the trash and what it holds.
	EmptyTrash(ctx context.Context, name string) error
	// EachTrashed calls fn with the path (where the file was) of every
	// file of the trash folder name, in no particular order.
	EachTrashed(ctx context.Context, name string, fn func(FileInfo) error) error
}

// WalkFolder lists the files under folder, as Walk does. A folder of the
// path that is a symbolic link is not followed: an error names it.
func (d *Dir) WalkFolder(ctx context.Context, folder string, fn func(FileInfo) error) error {
	if folder == "" || folder == "." {
		return d.Walk(ctx, fn)
	}
	if d.root == nil {
		return nil
	}
	if err := CheckPath(folder); err != nil {
		return fmt.Errorf("list the files of %s: %w", d.dir, err)
	}
	// Every folder of the path, the folder itself included, a folder.
	if err := d.checkFolders(folder + "/x"); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("list the files of %s in %s: %w", folder, d.dir, err)
	}
	if err := d.walk(ctx, folder, fn); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("list the files of %s in %s: %w", folder, d.dir, err)
	}
	return nil
}

// Trash moves the file at p into the trash folder name (Trasher). The
// folders of p are checked as Remove checks them: nothing is moved through
// a symbolic link.
func (d *Dir) Trash(_ context.Context, name, p string) error {
	if err := CheckPath(p); err != nil {
		return fmt.Errorf("move to the trash of %s: %w", d.dir, err)
	}
	if err := checkTrashName(name); err != nil {
		return err
	}
	if d.readOnly {
		return fmt.Errorf("move %s to the trash of %s: %w", p, d.dir, ErrReadOnly)
	}
	if err := d.checkFolders(p); err != nil {
		return fmt.Errorf("move %s to the trash of %s: %w", p, d.dir, err)
	}
	fi, err := d.root.Lstat(p)
	if err != nil {
		return fmt.Errorf("move %s to the trash of %s: %w", p, d.dir, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("move %s to the trash of %s: not a plain file (%s)", p, d.dir, fi.Mode().Type())
	}
	dst := TrashDir + "/" + name + "/" + p
	if err := d.root.MkdirAll(path.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("move %s to the trash of %s: %w", p, d.dir, err)
	}
	if err := d.root.Rename(p, dst); err != nil {
		return fmt.Errorf("move %s to the trash of %s: %w", p, d.dir, err)
	}
	d.touch(path.Dir(dst))
	d.removeEmptied(p)
	return nil
}

// removeEmptied removes the folders of p that the removal of its file left
// empty, deepest first, and notes the folders whose entries changed.
func (d *Dir) removeEmptied(p string) {
	parent := path.Dir(p)
	d.touch(parent)
	for parent != "." {
		if err := d.root.Remove(parent); err != nil {
			break // not empty, or gone
		}
		d.forget(parent)
		parent = path.Dir(parent)
		d.touch(parent)
	}
}

// TrashFolders lists the folders of DEST/.rsx/trash (Trasher).
func (d *Dir) TrashFolders(ctx context.Context) ([]TrashFolder, error) {
	if d.root == nil {
		return nil, nil
	}
	entries, err := fs.ReadDir(d.root.FS(), TrashDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the trash of %s: %w", d.dir, err)
	}
	var out []TrashFolder
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		f := TrashFolder{Name: e.Name()}
		f.Time, _ = TrashTime(f.Name)
		err := d.walk(ctx, TrashDir+"/"+f.Name, func(fi FileInfo) error {
			f.Files++
			f.Bytes += fi.Size
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list the trash of %s: %w", d.dir, err)
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// EmptyTrash removes the folder name of DEST/.rsx/trash (Trasher).
func (d *Dir) EmptyTrash(_ context.Context, name string) error {
	if err := checkTrashName(name); err != nil {
		return err
	}
	if d.readOnly {
		return fmt.Errorf("empty the trash of %s: %w", d.dir, ErrReadOnly)
	}
	if err := d.root.RemoveAll(TrashDir + "/" + name); err != nil {
		return fmt.Errorf("empty the trash folder %s of %s: %w", name, d.dir, err)
	}
	d.touch(TrashDir)
	return nil
}

// EachTrashed lists the files of the trash folder name (Trasher).
func (d *Dir) EachTrashed(ctx context.Context, name string, fn func(FileInfo) error) error {
	if err := checkTrashName(name); err != nil {
		return err
	}
	if d.root == nil {
		return nil
	}
	prefix := TrashDir + "/" + name + "/"
	err := d.walk(ctx, TrashDir+"/"+name, func(fi FileInfo) error {
		fi.Path = strings.TrimPrefix(fi.Path, prefix)
		return fn(fi)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("list the trash folder %s of %s: %w", name, d.dir, err)
	}
	return nil
}

// WalkFolder lists the objects under folder (FolderWalker): the range of
// keys after folder/ and up to the last key that can begin so.
func (s *S3) WalkFolder(ctx context.Context, folder string, fn func(FileInfo) error) error {
	if folder == "" || folder == "." {
		return s.Walk(ctx, fn)
	}
	if err := CheckPath(folder); err != nil {
		return fmt.Errorf("list the objects of %s: %w", s.loc.Name(), err)
	}
	lo, hi := FolderRange(folder)
	return s.WalkRange(ctx, lo, hi, fn)
}

// FolderRange is the range of paths, for a RangeWalker, of the files under
// folder: after folder/ and up to folder/ followed by a byte no UTF-8 text
// holds.
func FolderRange(folder string) (after, upTo string) {
	return folder + "/", folder + "/\xff"
}

// Trash moves the object at p into the trash folder name (Trasher): a
// server-side copy to PREFIX/.rsx/trash/NAME/p, then the removal of p.
func (s *S3) Trash(ctx context.Context, name, p string) error {
	if err := CheckPath(p); err != nil {
		return fmt.Errorf("move to the trash of %s: %w", s.loc.Name(), err)
	}
	if err := checkTrashName(name); err != nil {
		return err
	}
	if s.opts.ReadOnly {
		return fmt.Errorf("move %s to the trash of %s: %w", p, s.loc.Name(), ErrReadOnly)
	}
	if err := s.lost(); err != nil {
		return fmt.Errorf("move %s to the trash of %s: %w", p, s.loc.Name(), err)
	}
	src := minio.CopySrcOptions{Bucket: s.loc.Bucket, Object: s.loc.Key(p)}
	dst := minio.CopyDestOptions{Bucket: s.loc.Bucket, Object: s.loc.Key(TrashDir + "/" + name + "/" + p)}
	var err error
	if info, serr := s.client.StatObject(ctx, s.loc.Bucket, src.Object, minio.StatObjectOptions{}); serr != nil {
		err = serr
	} else if info.Size > maxCopySize {
		// A single copy is limited to 5 GiB: larger ones go by parts.
		_, err = s.client.ComposeObject(ctx, dst, src)
	} else {
		src.MatchETag = info.ETag // the object copied is the one looked at
		_, err = s.client.CopyObject(ctx, dst, src)
	}
	if err != nil {
		if isNotFound(err) {
			return fmt.Errorf("move %s to the trash of %s: %w", p, s.loc.Name(), fs.ErrNotExist)
		}
		return fmt.Errorf("move %s to the trash of %s: %w", p, s.loc.Name(), err)
	}
	if err := s.client.RemoveObject(ctx, s.loc.Bucket, src.Object, minio.RemoveObjectOptions{}); err != nil && !isNotFound(err) {
		return fmt.Errorf("move %s to the trash of %s: copied, but not removed: %w", p, s.loc.Name(), err)
	}
	return nil
}

// maxCopySize is the largest object one CopyObject request copies.
const maxCopySize = 5 << 30

// trashPrefix is the keys' prefix of the bucket's trash, and of its folder
// name when name is not "".
func (s *S3) trashPrefix(name string) string {
	p := s.loc.Key(TrashDir) + "/"
	if name != "" {
		p += name + "/"
	}
	return p
}

// TrashFolders lists the folders of PREFIX/.rsx/trash (Trasher).
func (s *S3) TrashFolders(ctx context.Context) ([]TrashFolder, error) {
	prefix := s.trashPrefix("")
	at := map[string]int{} // each folder's place in out
	var out []TrashFolder
	for obj := range s.client.ListObjects(ctx, s.loc.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("list the trash of %s: %w", s.loc.Name(), obj.Err)
		}
		name, rest, ok := strings.Cut(strings.TrimPrefix(obj.Key, prefix), "/")
		if !ok || rest == "" || strings.HasSuffix(rest, "/") {
			continue
		}
		i, seen := at[name]
		if !seen {
			f := TrashFolder{Name: name}
			f.Time, _ = TrashTime(name)
			i, at[name] = len(out), len(out)
			out = append(out, f)
		}
		out[i].Files++
		out[i].Bytes += obj.Size
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// EmptyTrash removes the objects of the trash folder name (Trasher).
func (s *S3) EmptyTrash(ctx context.Context, name string) error {
	if err := checkTrashName(name); err != nil {
		return err
	}
	if s.opts.ReadOnly {
		return fmt.Errorf("empty the trash of %s: %w", s.loc.Name(), ErrReadOnly)
	}
	if err := s.lost(); err != nil {
		return fmt.Errorf("empty the trash of %s: %w", s.loc.Name(), err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	objs := s.client.ListObjects(ctx, s.loc.Bucket, minio.ListObjectsOptions{Prefix: s.trashPrefix(name), Recursive: true})
	var listErr error
	keys := make(chan minio.ObjectInfo)
	go func() {
		defer close(keys)
		for obj := range objs {
			if obj.Err != nil {
				listErr = obj.Err
				return
			}
			select {
			case keys <- obj:
			case <-ctx.Done():
				return
			}
		}
	}()
	for r := range s.client.RemoveObjects(ctx, s.loc.Bucket, keys, minio.RemoveObjectsOptions{}) {
		if r.Err != nil && !isNotFound(r.Err) {
			cancel()
			for range keys {
			}
			return fmt.Errorf("empty the trash folder %s of %s: remove %s: %w", name, s.loc.Name(), r.ObjectName, r.Err)
		}
	}
	if listErr != nil {
		return fmt.Errorf("empty the trash folder %s of %s: %w", name, s.loc.Name(), listErr)
	}
	return nil
}

// EachTrashed lists the objects of the trash folder name (Trasher).
func (s *S3) EachTrashed(ctx context.Context, name string, fn func(FileInfo) error) error {
	if err := checkTrashName(name); err != nil {
		return err
	}
	prefix := s.trashPrefix(name)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for obj := range s.client.ListObjects(ctx, s.loc.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return fmt.Errorf("list the trash folder %s of %s: %w", name, s.loc.Name(), obj.Err)
		}
		p := strings.TrimPrefix(obj.Key, prefix)
		if p == "" || strings.HasSuffix(p, "/") {
			continue
		}
		if err := fn(FileInfo{Path: p, Size: obj.Size, ModTime: obj.LastModified, ETag: obj.ETag}); err != nil {
			return err
		}
	}
	return nil
}
