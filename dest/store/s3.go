package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
)

// S3 is a destination in an S3-compatible bucket, through minio-go.
//
// A write is staged in a local temporary file (in the cache folder) while the
// caller verifies it, and uploaded only by Commit: an object is never replaced
// by bytes that did not verify. The state database lives in the bucket at
// PREFIX/.rsx/state.db and is worked on in a local copy in the cache folder:
// StatePath fetches it when the local copy is missing or older (its ETag is not
// the one last seen), PublishState uploads it. The lock is the object
// PREFIX/.rsx/lock, created with a conditional write (If-None-Match: *) and
// renewed by the holder while it runs; see Lock.
type S3 struct {
	loc    S3Location
	client *minio.Client
	cache  string
	opts   Options

	mu          sync.Mutex
	locked      bool
	conditional bool   // the server honours If-None-Match / If-Match on PUT (probed by Lock)
	lostErr     error  // the lock was lost: writes stop
	roState     string // a read-only run's private copy of the bucket's state, removed by Close
	// manifest is the bucket's state manifest as this run last read or
	// wrote it (ETag manifestETag); uploaded counts the bytes of state
	// uploaded (StateUploaded); ownSegments the bytes of the segments of
	// the pages its runs changed since it last wrote a base (or opened),
	// merges left out: what makes them the runs to pay for a compaction
	// (nextState).
	manifest     *stateManifest
	manifestETag string
	uploaded     int64
	ownSegments  int64

	// beforeTakeover, for tests, is called before a stale lock's
	// If-Match write (s3lock.go).
	beforeTakeover func()
}

// cacheSide is what the cache folder remembers of the bucket's state object.
type cacheSide struct {
	URL  string `json:"url"`
	ETag string `json:"etag"` // of the state object (or manifest) the local copy was fetched from or published as
	// Format is "pages" when ETag is that of PREFIX/.rsx/state/manifest.json
	// (the state replicated by its changes), "" when it is that of the
	// whole-file PREFIX/.rsx/state.db of older versions.
	Format string `json:"format,omitempty"`
}

// OpenS3 connects to a bucket destination. The bucket must exist.
func OpenS3(ctx context.Context, loc S3Location, opts Options) (*S3, error) {
	creds, _, err := bucketCredentials(ctx, opts.Getenv)
	if err != nil {
		return nil, fmt.Errorf("bucket destination %s: %w", loc.Name(), err)
	}
	host, secure, lookup := "s3.amazonaws.com", true, minio.BucketLookupAuto
	if loc.Endpoint != "" {
		e, err := url.Parse(loc.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("bucket destination %s: endpoint: %w", loc.Name(), err)
		}
		host, secure, lookup = e.Host, e.Scheme == "https", minio.BucketLookupPath
	}
	client, err := minio.New(host, &minio.Options{
		Creds: creds, Secure: secure, Region: loc.Region, BucketLookup: lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("bucket destination %s: %w", loc.Name(), err)
	}
	ok, err := client.BucketExists(ctx, loc.Bucket)
	if err != nil {
		return nil, fmt.Errorf("bucket destination %s: reach the bucket at %s: %w", loc.Name(), client.EndpointURL(), err)
	}
	if !ok {
		return nil, fmt.Errorf("bucket destination %s: bucket %s does not exist at %s (rsx does not create buckets)", loc.Name(), loc.Bucket, client.EndpointURL())
	}
	cache := opts.CacheDir
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("bucket destination %s: no cache folder for its state: %w", loc.Name(), err)
		}
		sum := sha256.Sum256([]byte(loc.String()))
		cache = filepath.Join(base, "rsx", "s3", hex.EncodeToString(sum[:8]))
	}
	if err := os.MkdirAll(filepath.Join(cache, "tmp"), 0o755); err != nil {
		return nil, fmt.Errorf("bucket destination %s: cache folder: %w", loc.Name(), err)
	}
	return &S3{loc: loc, client: client, cache: cache, opts: opts}, nil
}

func (s *S3) String() string { return s.loc.Name() }

// CaseInsensitive is false: object keys are case-sensitive.
func (s *S3) CaseInsensitive() bool { return false }

// CacheDir is the local folder of the bucket's state copy and temporaries.
func (s *S3) CacheDir() string { return s.cache }

// TempDir is the tmp folder of the cache folder (read-only: Options.TempDir
// when set).
func (s *S3) TempDir() string {
	if s.opts.ReadOnly && s.opts.TempDir != "" {
		return s.opts.TempDir
	}
	return filepath.Join(s.cache, "tmp")
}

// ReadOnly reports whether the bucket was opened with Options.ReadOnly.
func (s *S3) ReadOnly() bool { return s.opts.ReadOnly }

// Features: a bucket, which uploads its state.
func (s *S3) Features() Features {
	return Features{Bucket: true, ReadOnly: s.opts.ReadOnly, StateUploaded: s.StateUploaded}
}

// Close removes a read-only run's copy of the state; the client holds no
// resources that need closing.
func (s *S3) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.roState != "" {
		os.Remove(s.roState)
		s.roState = ""
	}
	return nil
}

// Sync does nothing: a bucket's writes are durable when they return.
func (s *S3) Sync(context.Context) error { return nil }

func (s *S3) lost() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lostErr
}

// errorCode is the S3 error code of err ("" when it is not an S3 error).
func errorCode(err error) (string, int) {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er.Code, er.StatusCode
	}
	return "", 0
}

func isNotFound(err error) bool {
	code, status := errorCode(err)
	return code == "NoSuchKey" || code == "NotFound" || status == http.StatusNotFound
}

func isPreconditionFailed(err error) bool {
	code, status := errorCode(err)
	return code == "PreconditionFailed" || status == http.StatusPreconditionFailed
}

// Remove deletes an object.
func (s *S3) Remove(ctx context.Context, p string) error {
	if err := CheckPath(p); err != nil {
		return fmt.Errorf("remove from %s: %w", s.loc.Name(), err)
	}
	if s.opts.ReadOnly {
		return fmt.Errorf("remove %s from %s: %w", p, s.loc.Name(), ErrReadOnly)
	}
	if err := s.lost(); err != nil {
		return fmt.Errorf("remove %s from %s: %w", p, s.loc.Name(), err)
	}
	if err := s.client.RemoveObject(ctx, s.loc.Bucket, s.loc.Key(p), minio.RemoveObjectOptions{}); err != nil && !isNotFound(err) {
		return fmt.Errorf("remove %s from %s: %w", p, s.loc.Name(), err)
	}
	return nil
}

// Stat describes an object.
func (s *S3) Stat(ctx context.Context, p string) (FileInfo, error) {
	if err := CheckPath(p); err != nil {
		return FileInfo{}, fmt.Errorf("stat in %s: %w", s.loc.Name(), err)
	}
	info, err := s.client.StatObject(ctx, s.loc.Bucket, s.loc.Key(p), minio.StatObjectOptions{})
	if err != nil {
		if isNotFound(err) {
			return FileInfo{}, fmt.Errorf("stat %s in %s: %w", p, s.loc.Name(), fs.ErrNotExist)
		}
		return FileInfo{}, fmt.Errorf("stat %s in %s: %w", p, s.loc.Name(), err)
	}
	return FileInfo{Path: p, Size: info.Size, ModTime: info.LastModified, ETag: info.ETag}, nil
}

// Open reads an object: one GET, whose response says at once whether the
// object is there (minio-go's lazy GetObject found a missing object only at
// the first read, and through a goroutine and channels of its own an object;
// its obj.Stat sent a HEAD before the GET). The body is read as it comes:
// the caller hashes it (an audit, a reconcile's checksum), and a body cut
// short ends in an error, not in a short read (the response's length is
// known).
func (s *S3) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	if err := CheckPath(p); err != nil {
		return nil, fmt.Errorf("open in %s: %w", s.loc.Name(), err)
	}
	body, _, _, err := minio.Core{Client: s.client}.GetObject(ctx, s.loc.Bucket, s.loc.Key(p), minio.GetObjectOptions{})
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("open %s in %s: %w", p, s.loc.Name(), fs.ErrNotExist)
		}
		return nil, fmt.Errorf("open %s in %s: %w", p, s.loc.Name(), err)
	}
	return body, nil
}

// Walk lists every object under the prefix but those of PREFIX/.rsx.
func (s *S3) Walk(ctx context.Context, fn func(FileInfo) error) error {
	return s.WalkRange(ctx, "", "", fn)
}

// WalkRange lists the objects whose paths sort after after and up to upTo
// ("": no bound), in the order of their keys' bytes, as S3 lists them:
// from the first key after after (ListObjectsV2's start-after), until a key
// beyond upTo.
func (s *S3) WalkRange(ctx context.Context, after, upTo string, fn func(FileInfo) error) error {
	prefix := ""
	if s.loc.Prefix != "" {
		prefix = s.loc.Prefix + "/"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := minio.ListObjectsOptions{Prefix: prefix, Recursive: true}
	if after != "" {
		opts.StartAfter = prefix + after
	}
	for obj := range s.client.ListObjects(ctx, s.loc.Bucket, opts) {
		if obj.Err != nil {
			return fmt.Errorf("list the objects of %s: %w", s.loc.Name(), obj.Err)
		}
		p := strings.TrimPrefix(obj.Key, prefix)
		if upTo != "" && p > upTo {
			return nil
		}
		if first, _, _ := strings.Cut(p, "/"); first == ReservedDir || strings.HasSuffix(p, "/") {
			continue
		}
		if err := fn(FileInfo{Path: p, Size: obj.Size, ModTime: obj.LastModified, ETag: obj.ETag}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (s *S3) sidePath() string   { return filepath.Join(s.cache, "state.json") }
func (s *S3) localState() string { return filepath.Join(s.cache, "state.db") }

func (s *S3) readSide() cacheSide {
	var side cacheSide
	if b, err := os.ReadFile(s.sidePath()); err == nil {
		json.Unmarshal(b, &side)
	}
	if side.URL != s.loc.String() {
		return cacheSide{}
	}
	return side
}

func (s *S3) writeSide(side cacheSide) error {
	side.URL = s.loc.String()
	b, _ := json.Marshal(side)
	tmp := s.sidePath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, s.sidePath())
}

func (s *S3) removeLocalState() error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(s.localState() + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// StatePath returns the local copy of the bucket's state database, first
// fetching the bucket's when the local copy is missing or is not the one last
// fetched or published (another machine ran since). A local copy that is
// ahead of the bucket's (a run here stopped before publishing) is kept. A
// local copy that was published but whose state is gone is dropped.
//
// The bucket's state is the manifest PREFIX/.rsx/state/manifest.json and the
// objects it lists (restored and checked by restoreState), or, written by an
// older rsx, the whole file PREFIX/.rsx/state.db (fetched as it is; the first
// publish replaces it).
func (s *S3) StatePath(ctx context.Context) (string, error) {
	s.mu.Lock()
	locked := s.locked
	s.mu.Unlock()
	if !locked {
		return "", fmt.Errorf("state of %s: lock the destination first", s.loc.Name())
	}
	local := s.localState()
	side := s.readSide()
	_, lerr := os.Stat(local)
	haveLocal := lerr == nil
	m, etag, err := s.getManifest(ctx)
	if err != nil {
		return "", fmt.Errorf("state of %s: %w", s.loc.Name(), err)
	}
	if m != nil {
		if s.opts.ReadOnly {
			if haveLocal && side.Format == formatPages && side.ETag == etag {
				return local, nil
			}
			r, err := s.fetchState(ctx, m, etag, s.TempDir())
			if err != nil {
				return "", fmt.Errorf("state of %s: restore it from the bucket: %w", s.loc.Name(), err)
			}
			s.mu.Lock()
			s.roState = r.path
			s.mu.Unlock()
			return r.path, nil
		}
		if haveLocal && side.Format == formatPages && side.ETag == etag {
			s.mu.Lock()
			s.manifest, s.manifestETag = m, etag
			s.mu.Unlock()
			return local, nil
		}
		r, err := s.fetchState(ctx, m, etag, filepath.Join(s.cache, "tmp"))
		if err != nil {
			return "", fmt.Errorf("state of %s: restore it from the bucket: %w", s.loc.Name(), err)
		}
		if err := s.replaceLocalState(r.path); err != nil {
			return "", err
		}
		if err := writePageHashes(s.pageHashesPath(), r.h); err != nil {
			return "", fmt.Errorf("state of %s: %w", s.loc.Name(), err)
		}
		writeSegmentPages(s.segmentPagesPath(), r.m, r.lists)
		if err := s.writeSide(cacheSide{ETag: r.etag, Format: formatPages}); err != nil {
			return "", fmt.Errorf("state of %s: %w", s.loc.Name(), err)
		}
		s.mu.Lock()
		s.manifest, s.manifestETag = r.m, r.etag
		s.mu.Unlock()
		return local, nil
	}
	key := s.loc.Key(StateFile)
	info, err := s.client.StatObject(ctx, s.loc.Bucket, key, minio.StatObjectOptions{})
	if err != nil && !isNotFound(err) {
		return "", fmt.Errorf("state of %s: %w", s.loc.Name(), err)
	}
	if s.opts.ReadOnly {
		return s.statePathReadOnly(ctx, key, info, err == nil, haveLocal, side)
	}
	if err != nil { // no state in the bucket
		if haveLocal && side.ETag != "" {
			if err := s.removeLocalState(); err != nil {
				return "", fmt.Errorf("state of %s: drop the local copy of a state the bucket no longer has: %w", s.loc.Name(), err)
			}
			os.Remove(s.sidePath())
		}
		return local, nil
	}
	if haveLocal && side.Format == "" && side.ETag == info.ETag {
		return local, nil
	}
	tmp := filepath.Join(s.cache, "tmp", "state-"+randomName())
	if err := s.client.FGetObject(ctx, s.loc.Bucket, key, tmp, minio.GetObjectOptions{}); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("state of %s: fetch %s: %w", s.loc.Name(), key, err)
	}
	if err := s.replaceLocalState(tmp); err != nil {
		return "", err
	}
	if err := s.writeSide(cacheSide{ETag: info.ETag}); err != nil {
		return "", fmt.Errorf("state of %s: %w", s.loc.Name(), err)
	}
	return local, nil
}

// replaceLocalState puts the file at tmp in place of the local copy of the
// state (and its log).
func (s *S3) replaceLocalState(tmp string) error {
	if err := s.removeLocalState(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("state of %s: replace the local copy: %w", s.loc.Name(), err)
	}
	os.Remove(s.sidePath())
	if err := os.Rename(tmp, s.localState()); err != nil {
		return fmt.Errorf("state of %s: replace the local copy: %w", s.loc.Name(), err)
	}
	return nil
}

// PublishState stores the committed state in the bucket: the pages of the
// database file at path that changed since the state last published, as a
// segment, and the manifest that lists it (publishPages; a new base when the
// segments weigh as much as the last one). Where the server honours
// conditional writes, the manifest is written only if the bucket still has
// the one this run fetched or last published: a run that lost its lock
// cannot overwrite the state of the run that took it.
func (s *S3) PublishState(ctx context.Context, path string) error {
	if s.opts.ReadOnly {
		return fmt.Errorf("publish the state to %s: %w", s.loc.Name(), ErrReadOnly)
	}
	if err := s.lost(); err != nil {
		return fmt.Errorf("publish the state to %s: %w", s.loc.Name(), err)
	}
	s.mu.Lock()
	conditional := s.conditional
	s.mu.Unlock()
	if err := s.publishPages(ctx, path, s.readSide(), conditional); err != nil {
		return fmt.Errorf("publish the state to %s: %w", s.loc.Name(), err)
	}
	return nil
}

// statePathReadOnly is StatePath of a read-only run, for a bucket whose state
// is in the whole-file format of older versions, which changes neither the
// bucket nor the cache folder's copy: that copy when it is current (or
// ahead of the bucket's: a run here that stopped before publishing), else the
// bucket's state fetched into a private file; "" when there is no state.
func (s *S3) statePathReadOnly(ctx context.Context, key string, info minio.ObjectInfo, inBucket, haveLocal bool, side cacheSide) (string, error) {
	switch {
	case !inBucket && haveLocal && side.ETag == "":
		return s.localState(), nil
	case !inBucket:
		return "", nil
	case haveLocal && side.Format == "" && side.ETag == info.ETag:
		return s.localState(), nil
	}
	f, err := os.CreateTemp(s.TempDir(), "rsx-state-*.db")
	if err != nil {
		return "", fmt.Errorf("state of %s: %w", s.loc.Name(), err)
	}
	f.Close()
	s.mu.Lock()
	s.roState = f.Name()
	s.mu.Unlock()
	if err := s.client.FGetObject(ctx, s.loc.Bucket, key, f.Name(), minio.GetObjectOptions{}); err != nil {
		return "", fmt.Errorf("state of %s: fetch %s: %w", s.loc.Name(), key, err)
	}
	return f.Name(), nil
}
