// Package store is where a destination's copy lives — a local folder or an S3-compatible bucket — with writes that replace a file only once its bytes are complete, a lock, and the state database's home.
//
// Open takes the destination as the sync command's DEST: a folder path, or
// s3://bucket/prefix?endpoint=URL&region=R (see ParseS3URL). A run uses a Store
// in this order:
//
//	st, err := store.Open(ctx, dest, store.Options{Create: true})
//	lock, err := st.Lock(ctx)          // one run per destination; removes an interrupted run's temporaries
//	defer lock.Release()
//	dbPath, err := st.StatePath(ctx)   // DEST/.rsx/state.db, or the bucket's state fetched into a local cache
//	... for each resource:
//	    w, err := st.Create(ctx, path, store.Meta{ContentType: typ})
//	    io.Copy(io.MultiWriter(w, verifier), body)   // the caller verifies while writing
//	    w.Commit(ctx)   // or w.Abort(), or w.Reject(ctx) to keep the bytes for inspection
//	... before committing a state batch that records those writes:
//	    st.Sync(ctx)
//	... after each state batch and at the end (a bucket stores the state too):
//	    db.Snapshot(ctx, func(p string) error { return st.PublishState(ctx, p) })
//
// Paths are relative, "/"-separated, as dest/pathmap makes them; every
// operation checks them again and refuses anything that could leave the
// destination or touch its own folder, ReservedDir (".rsx").
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ReservedDir is the destination's own folder: DEST/.rsx/ (state.db, lock,
// tmp/, rejected/). Walk skips it and no resource path may enter it.
const ReservedDir = ".rsx"

// StateFile is the state database's path inside a destination.
const StateFile = ReservedDir + "/state.db"

// Store is where a copy lives.
type Store interface {
	// String names the destination in messages: a folder, or s3://bucket/prefix.
	String() string
	// Lock takes the destination for this run, or returns a *LockedError
	// naming the run that holds it. It removes the temporaries an interrupted
	// run left behind, and the oldest rejected downloads beyond what
	// ReservedDir/rejected keeps (Options.KeepRejectedFiles), as Release
	// does again. Release the lock at the end of the run.
	Lock(ctx context.Context) (*Lock, error)
	// Create begins the write of the file at path. Nothing at path changes
	// until the Writer's Commit.
	Create(ctx context.Context, path string, meta Meta) (Writer, error)
	// Sync makes every Commit and Remove so far durable; call it before
	// committing the state that records them (a bucket's writes are durable
	// when they return).
	Sync(ctx context.Context) error
	// Remove deletes the file at path (and the folders it leaves empty). A
	// missing file is not an error.
	Remove(ctx context.Context, path string) error
	// Stat describes the file at path; a missing file gives an error that
	// wraps fs.ErrNotExist.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Open reads the file at path (to hash it again in an audit).
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	// Walk calls fn for every file of the copy (not the ReservedDir), in no
	// particular order.
	Walk(ctx context.Context, fn func(FileInfo) error) error
	// CaseInsensitive reports whether paths that differ only by case name one
	// file here (then they collide: state.DB.NewDetector).
	CaseInsensitive() bool
	// TempDir is a local folder for the run's own temporary files (a plan's
	// spool, downloaded dump packages): DEST/.rsx/tmp for a folder, a folder
	// of the cache for a bucket. Lock empties it, so what a killed run left
	// there is removed by the next.
	TempDir() string
	// StatePath is the local file of the state database. For a bucket it is
	// a cache copy, fetched from the bucket when missing or older; call it
	// after Lock. Opened ReadOnly, a destination without a state gives "".
	StatePath(ctx context.Context) (string, error)
	// PublishState stores the state database file at path in the
	// destination, when it does not live there already (a bucket). The file
	// must be complete (state.DB.Snapshot).
	PublishState(ctx context.Context, path string) error
	// Close frees the Store's resources (not its lock: Release it).
	Close() error
	// Features says what the Store is and what it can do: ask it, not the
	// Store's type or its name.
	Features() Features
}

// Features says what a Store is and what it can do, as rclone's backends
// say theirs: the engine and the commands decide by it (a bucket's state
// batches are larger, a folder's files keep modification times, a run
// that did not start removes what Open made) rather than by the
// destination's name or the Store's concrete type. An operation only some
// Stores have is a func, nil when the Store has none.
type Features struct {
	// Bucket: an object store (s3://bucket/prefix). Its objects are
	// written whole, by an upload, and listed in pages; its state is a
	// local copy that each batch of the state publishes (PublishState),
	// so batches are larger; a file of it that no row records may be the
	// upload of a killed run. A folder is not one.
	Bucket bool
	// ReadOnly: opened without writing anything (Options.ReadOnly, or a
	// folder that cannot be written, Options.ReadOnlyWhenUnwritable):
	// Create and Remove fail with ErrReadOnly.
	ReadOnly bool
	// ModTimes: a file keeps the modification time a write gave it, which
	// the state records, so that a reconcile hashes only the files whose
	// time changed (a folder's; a bucket's objects have none rsx keeps).
	ModTimes bool
	// Local is the folder the copy's files are in, when they are local
	// files that may be read, copied or linked in place (a folder's); ""
	// for a bucket.
	Local string
	// Discard removes what Open made in the destination (a folder and its
	// .rsx) when a run stops before writing anything of a copy; call it
	// after the engine's Dest is closed and before Close. nil: Open makes
	// nothing a run that did not start must remove.
	Discard func() error
	// StateUploaded is how many bytes of state the Store has uploaded (a
	// bucket's); nil when its state lives in place.
	StateUploaded func() int64
}

// WriteError is a write to the destination that failed: the file system
// or the bucket's staging refused the bytes (a full disk, an I/O error),
// the destination's fault and not the Source's. It reaches the caller
// through whatever wraps it (the fetch layer's download): errors.As finds
// it.
type WriteError struct {
	Path string // the file of the copy
	Err  error
}

func (e *WriteError) Error() string { return "write " + e.Path + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// errWriteDone is a write to a Writer committed, abandoned or rejected.
var errWriteDone = errors.New("already committed or abandoned")

// Meta is what a write may say of the file.
type Meta struct {
	ContentType string // for a bucket's Content-Type; a folder ignores it
}

// Writer receives the bytes of one file.
type Writer interface {
	io.Writer
	// Commit makes the bytes written the file's content: for a folder the
	// temporary is fsynced and renamed into place, for a bucket it is
	// uploaded. After an error the old content is untouched.
	Commit(ctx context.Context) error
	// Abort discards the bytes; the old content is untouched.
	Abort() error
	// Reject keeps the bytes under ReservedDir/rejected/PATH for inspection
	// (the old content is untouched) and returns where they are.
	Reject(ctx context.Context) (string, error)
	// Written is how many bytes were written.
	Written() int64
}

// BatchCommitter is a Store that can commit many writes together, making
// all their bytes durable with one flush instead of one fsync each (a folder
// on Linux: syncfs). Every write is still durable before it is renamed into
// place.
type BatchCommitter interface {
	// CommitBatch commits ws, Writers of this Store, and returns the error
	// of each, in order; after an error the old content of that path is
	// untouched. A Writer that is not this Store's own is committed alone.
	CommitBatch(ctx context.Context, ws []Writer) []error
}

// BatchStater describes many files at once, as Stat does each, at less cost
// (a folder's files relative to the folder, opened once); fn is called
// once for each path, in any order.
type BatchStater interface {
	StatBatch(ctx context.Context, paths []string, fn func(i int, fi FileInfo, err error))
}

// A RangeWalker lists the files of a range of paths, in the byte order of
// their paths, as Walk lists them all: those after after and up to upTo
// ("": to the end). Ranges walked at once describe the copy sooner where
// each listing request waits on the server (a bucket's pages of 1,000
// objects, one after another).
type RangeWalker interface {
	WalkRange(ctx context.Context, after, upTo string, fn func(FileInfo) error) error
}

// A FileCounter counts the files Walk would list, at less cost (it
// describes none).
type FileCounter interface {
	CountFiles(ctx context.Context) (int64, error)
}

// FileOpeners open many files one after another at less cost than Open
// does each: an audit's workers read every file of a copy.
type FileOpeners interface {
	NewFileOpener() FileOpener
}

// A FileOpener opens files as the Store's Open does, for one goroutine at a
// time. It may keep what it opened for a file (its folder) for the next:
// files given in the order of their folders cost least. Close releases it.
type FileOpener interface {
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	Close() error
}

// ModTimer is a committed Writer that knows the modification time its file
// was given (a folder's; a bucket's objects have none rsx keeps), so that
// the state can record it and a reconcile tell a file changed since.
type ModTimer interface {
	ModTime() time.Time
}

// FileInfo describes a file of the copy.
type FileInfo struct {
	Path    string // relative to the destination, "/"-separated
	Size    int64
	ModTime time.Time
	ETag    string // a bucket's ETag; "" for a folder
}

// Options configure Open.
type Options struct {
	// Create makes a destination folder that does not exist yet (sync);
	// without it a missing folder is an error (audit).
	Create bool
	// CacheDir is where a bucket's state and temporaries are kept locally;
	// by default rsx/s3/KEY under the user's cache folder (os.UserCacheDir),
	// KEY naming the bucket URL.
	CacheDir string
	// Getenv reads the credentials' environment variables (os.Getenv by
	// default): AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN.
	Getenv func(string) string
	// KeepRejectedFiles and KeepRejectedBytes bound what ReservedDir/rejected
	// keeps: the newest files within both (the newest one always); older
	// ones are removed at the start and at the end of every run. 0 means
	// DefaultKeepRejectedFiles, DefaultKeepRejectedBytes.
	KeepRejectedFiles int
	KeepRejectedBytes int64
	// ReadOnly opens the destination without writing anything to it (an
	// audit of a read-only copy, a dry run): a folder is not made (with
	// Create, one that does not exist is an empty destination), no
	// DEST/.rsx, probe, lock or temporary file is written, Lock takes a
	// shared lock where there is one to take (a folder's; a bucket's live
	// lock refuses), StatePath is "" when there is no state yet, and Create
	// and Remove fail with ErrReadOnly.
	ReadOnly bool
	// ReadOnlyWhenUnwritable opens a folder that cannot be written (a
	// read-only mount, a WORM volume, a snapshot, no permission) as
	// ReadOnly instead of failing (an audit: it records what it can).
	ReadOnlyWhenUnwritable bool
	// TempDir is the folder for the run's temporaries when ReadOnly (they
	// cannot go to DEST/.rsx/tmp); the system's temporary folder by default.
	TempDir string
	// LockStaleAfter is how long a bucket's lock may go without being
	// refreshed before another run may take it over (default 10 minutes; the
	// holder refreshes it every LockStaleAfter/5).
	LockStaleAfter time.Duration
	// HostID names this process in the lock it holds (Holder.ID): the
	// host id of the run history; "" is DefaultHostID().
	HostID string
}

// IsBucket reports whether dest names a bucket (s3://…) rather than a
// folder, as Open tells them apart: for what must be decided before the
// destination is opened (an opened Store says it in its Features).
func IsBucket(dest string) bool { return strings.HasPrefix(dest, "s3://") }

// Open opens the destination named by dest: s3://… for a bucket, anything
// else is a folder.
func Open(ctx context.Context, dest string, opts Options) (Store, error) {
	switch {
	case IsBucket(dest):
		loc, err := ParseS3URL(dest)
		if err != nil {
			return nil, err
		}
		s, err := OpenS3(ctx, loc, opts)
		if err != nil {
			return nil, err // not a nil *S3 in a Store that is not nil
		}
		return s, nil
	case strings.Contains(dest, "://"):
		scheme, _, _ := strings.Cut(dest, "://")
		return nil, fmt.Errorf("destination %s: %q is not a supported kind of destination (a folder, or s3://bucket/prefix)", dest, scheme+"://")
	case dest == "":
		return nil, errors.New("no destination given")
	}
	d, err := OpenDir(dest, opts)
	if err != nil && opts.ReadOnlyWhenUnwritable && !opts.ReadOnly && cannotWrite(err) {
		opts.ReadOnly, opts.Create = true, false
		d, err = OpenDir(dest, opts)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// cannotWrite tells an error of a destination that cannot be written.
func cannotWrite(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// PathError is a path a Store refuses.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string { return "path " + strconv.Quote(e.Path) + ": " + e.Reason }

// MaxNameBytes is the longest name a path segment may have.
const MaxNameBytes = 255

// CheckPath refuses a path that is not a clean relative path of the copy:
// empty, absolute, with an empty, "." or ".." segment, a backslash or a NUL,
// a name longer than MaxNameBytes, or inside ReservedDir (in any case).
//
// It is not the rule for a bitstream's path in a dump package
// (model.PackageMember): that one judges a name a Source wrote, before it is
// read or written; this one judges a path of the copy, which dest/pathmap
// made from a URI by escaping whatever a file system or a terminal would
// take amiss, and adds what only a Destination has (its own folder, a
// file system's name length).
func CheckPath(p string) error {
	if p == "" {
		return &PathError{p, "empty"}
	}
	if p[0] == '/' {
		return &PathError{p, "absolute"}
	}
	if strings.ContainsAny(p, "\\\x00") {
		return &PathError{p, "contains a backslash or NUL"}
	}
	for i, seg := range strings.Split(p, "/") {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return &PathError{p, "has a segment " + strconv.Quote(seg)}
		case len(seg) > MaxNameBytes:
			return &PathError{p, "has a name longer than " + strconv.Itoa(MaxNameBytes) + " bytes"}
		case i == 0 && strings.EqualFold(seg, ReservedDir):
			return &PathError{p, "is inside the destination's own folder " + ReservedDir}
		}
	}
	return nil
}

// tempWrite is what a folder's and a bucket's Writers share: the local
// temporary file the bytes go to until Commit, and the count of them.
type tempWrite struct {
	path string // the file's path in the copy
	f    *os.File
	n    int64
	done bool // committed, abandoned or rejected
}

func (w *tempWrite) Write(b []byte) (int, error) {
	if w.done {
		return 0, &WriteError{Path: w.path, Err: errWriteDone}
	}
	n, err := w.f.Write(b)
	w.n += int64(n)
	if err != nil {
		return n, &WriteError{Path: w.path, Err: err}
	}
	return n, nil
}

func (w *tempWrite) Written() int64 { return w.n }
