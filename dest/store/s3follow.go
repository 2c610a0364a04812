package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/minio/minio-go/v7"
)

// A reader that takes no lock (rsx serve --dest) follows a bucket's state
// in copies of its own: each is the state one manifest describes, and the
// next is made from one no longer read by applying only the segments it
// lacks (a new base, or a copy not at hand, is restored whole). Nothing is
// written to the bucket or to the cache folder.

// StateCopy is a file holding a bucket's state as one manifest (or, for an
// older rsx's bucket, one state.db object) described it.
type StateCopy struct {
	Path string
	etag string
	m    *stateManifest // nil: a whole state.db object
}

// CopyState returns a copy of the bucket's state, made in dir, when it is
// not the one last describes (nil when it is, and when the bucket has no
// state: then ok is false). reuse, when not nil, is a copy no longer read,
// brought up to the bucket's state in place when it can be (the same base,
// and segments the bucket's manifest still lists); else, and when that
// fails, a new file is restored whole, and reuse is removed.
func (s *S3) CopyState(ctx context.Context, dir string, last, reuse *StateCopy) (c *StateCopy, ok bool, err error) {
	m, etag, err := s.getManifest(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("state of %s: %w", s.loc.Name(), err)
	}
	if m == nil {
		return s.copyLegacyState(ctx, dir, last, reuse)
	}
	if last != nil && last.etag == etag {
		return nil, true, nil
	}
	if reuse != nil && reuse.m != nil && reuse.m.Base.Key == m.Base.Key && reuse.m.PageSize == m.PageSize &&
		len(reuse.m.Segments) <= len(m.Segments) && slices.Equal(reuse.m.Segments, m.Segments[:len(reuse.m.Segments)]) {
		if err := s.applySegments(ctx, reuse.Path, reuse.m, m); err == nil {
			return &StateCopy{Path: reuse.Path, etag: etag, m: m}, true, nil
		}
	}
	if reuse != nil {
		os.Remove(reuse.Path)
	}
	p, _, m2, etag2, err := s.fetchState(ctx, m, etag, dir)
	if err != nil {
		return nil, true, fmt.Errorf("state of %s: restore it from the bucket: %w", s.loc.Name(), err)
	}
	return &StateCopy{Path: p, etag: etag2, m: m2}, true, nil
}

// applySegments brings the file at p, the state of manifest from, to the
// state of manifest to (the same base; from's segments begin to's).
func (s *S3) applySegments(ctx context.Context, p string, from, to *stateManifest) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	pages := from.Pages
	for _, seg := range to.Segments[len(from.Segments):] {
		if pages, err = s.applySegment(ctx, f, to.PageSize, pages, seg); err != nil {
			return fmt.Errorf("apply %s: %w", seg.Key, err)
		}
	}
	if pages != to.Pages {
		return fmt.Errorf("the state has %d pages once its segments are applied, the manifest says %d", pages, to.Pages)
	}
	return nil
}

// copyLegacyState is CopyState of a bucket whose state is a whole
// state.db object (an older rsx's).
func (s *S3) copyLegacyState(ctx context.Context, dir string, last, reuse *StateCopy) (*StateCopy, bool, error) {
	key := s.loc.Key(StateFile)
	info, err := s.client.StatObject(ctx, s.loc.Bucket, key, minio.StatObjectOptions{})
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state of %s: %w", s.loc.Name(), err)
	}
	if last != nil && last.m == nil && last.etag == info.ETag {
		return nil, true, nil
	}
	if reuse != nil {
		os.Remove(reuse.Path)
	}
	f, err := os.CreateTemp(dir, "rsx-state-*.db")
	if err != nil {
		return nil, true, err
	}
	f.Close()
	if err := s.client.FGetObject(ctx, s.loc.Bucket, key, f.Name(), minio.GetObjectOptions{}); err != nil {
		os.Remove(f.Name())
		return nil, true, fmt.Errorf("state of %s: fetch %s: %w", s.loc.Name(), key, err)
	}
	return &StateCopy{Path: f.Name(), etag: info.ETag}, true, nil
}

// LockHeld reports whether a run holds the bucket's lock: its lock object
// is there, and refreshed within LockStaleAfter.
func (s *S3) LockHeld(ctx context.Context) (bool, error) {
	h, _, mod, err := s.readLock(ctx)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the lock of %s: %w", s.loc.Name(), err)
	}
	return s.stale(h, mod) == "", nil
}

// OpenSeeker reads the object at path as an io.ReadSeeker (a range of it
// is fetched as it is read), with its size.
func (s *S3) OpenSeeker(ctx context.Context, p string) (io.ReadSeekCloser, error) {
	if err := CheckPath(p); err != nil {
		return nil, fmt.Errorf("open in %s: %w", s.loc.Name(), err)
	}
	obj, err := s.client.GetObject(ctx, s.loc.Bucket, s.loc.Key(p), minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("open %s in %s: %w", p, s.loc.Name(), err)
	}
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		if isNotFound(err) {
			err = errors.Join(err, os.ErrNotExist)
		}
		return nil, fmt.Errorf("open %s in %s: %w", p, s.loc.Name(), err)
	}
	return obj, nil
}
