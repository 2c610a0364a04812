package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/minio/minio-go/v7"
)

// What DEST/.rsx/rejected/ keeps by default: the newest files, at most
// this many and this many bytes together (the newest one always, whatever
// its size). Older files are removed at the start and at the end of every
// run (Lock, Release).
const (
	DefaultKeepRejectedFiles       = 1000
	DefaultKeepRejectedBytes int64 = 256 << 20
)

// RejectedDir is where a destination keeps the bytes of downloads that
// failed their verification, at the path they would have had.
const RejectedDir = ReservedDir + "/rejected"

func (o Options) keepRejected() (int, int64) {
	files, bytes := o.KeepRejectedFiles, o.KeepRejectedBytes
	if files <= 0 {
		files = DefaultKeepRejectedFiles
	}
	if bytes <= 0 {
		bytes = DefaultKeepRejectedBytes
	}
	return files, bytes
}

// rejectedToPrune picks the files to remove from those kept: all but the
// newest (by modification time, then by path, so that every store and run
// picks alike), within keepFiles and keepBytes; the newest is always kept.
func rejectedToPrune(kept []FileInfo, keepFiles int, keepBytes int64) []FileInfo {
	slices.SortFunc(kept, func(a, b FileInfo) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
	var n int
	var total int64
	for i, fi := range kept {
		if i > 0 && (n+1 > keepFiles || total+fi.Size > keepBytes) {
			return kept[i:]
		}
		n++
		total += fi.Size
	}
	return nil
}

// pruneRejected removes the oldest files of DEST/.rsx/rejected beyond what
// it keeps, and the folders that leaves empty. Only while the lock is held.
func (d *Dir) pruneRejected() (int, error) {
	var kept []FileInfo
	var folders []string
	err := fs.WalkDir(d.root.FS(), RejectedDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != RejectedDir {
				folders = append(folders, p)
			}
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		kept = append(kept, FileInfo{Path: p, Size: fi.Size(), ModTime: fi.ModTime()})
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("list the rejected downloads of %s: %w", d.dir, err)
	}
	prune := rejectedToPrune(kept, d.keepFiles, d.keepBytes)
	for i, fi := range prune {
		if err := d.root.Remove(fi.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return i, fmt.Errorf("remove an old rejected download of %s: %w", d.dir, err)
		}
	}
	if len(prune) > 0 {
		// Deepest first: a folder emptied leaves its parent empty.
		slices.SortFunc(folders, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
		for _, f := range folders {
			d.root.Remove(f) // fails when not empty: kept
		}
		d.forget(RejectedDir)
	}
	return len(prune), nil
}

// pruneRejected removes the oldest objects under PREFIX/.rsx/rejected/
// beyond what it keeps. Only while the lock is held.
func (s *S3) pruneRejected(ctx context.Context) (int, error) {
	prefix := s.loc.Key(RejectedDir) + "/"
	var kept []FileInfo
	for obj := range s.client.ListObjects(ctx, s.loc.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return 0, fmt.Errorf("list the rejected downloads of %s: %w", s.loc.Name(), obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue
		}
		kept = append(kept, FileInfo{Path: obj.Key, Size: obj.Size, ModTime: obj.LastModified})
	}
	files, bytes := s.opts.keepRejected()
	prune := rejectedToPrune(kept, files, bytes)
	for i, fi := range prune {
		if err := s.client.RemoveObject(ctx, s.loc.Bucket, fi.Path, minio.RemoveObjectOptions{}); err != nil && !isNotFound(err) {
			return i, fmt.Errorf("remove an old rejected download of %s: %w", s.loc.Name(), err)
		}
	}
	return len(prune), nil
}
