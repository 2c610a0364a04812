package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/minio/minio-go/v7"
)

// DefaultLockStaleAfter is how long a bucket's lock may go unrefreshed
// before another run takes it over.
const DefaultLockStaleAfter = 10 * time.Minute

// settleDelay is how long the fallback lock (for servers without conditional
// writes), and a takeover of a stale lock, wait before reading the lock back.
const settleDelay = 2 * time.Second

func (s *S3) staleAfter() time.Duration {
	if s.opts.LockStaleAfter > 0 {
		return s.opts.LockStaleAfter
	}
	return DefaultLockStaleAfter
}

// Lock takes PREFIX/.rsx/lock.
//
// The lock object is created with If-None-Match: *, so that of two runs only
// one can create it. Its holder rewrites it every LockStaleAfter/5 (with
// If-Match on its own ETag); a lock not rewritten for LockStaleAfter, or one
// whose holder is known to have ended (its run marker in this cache folder,
// see runEnded), is taken over with If-Match on the stale lock's ETag, then
// read back after settleDelay, so that of two runs taking it over only one
// succeeds (the servers tested accept several If-Match writes at once). The holder is its run id
// (Holder.Token): a host name and a pid are shown, never trusted.
// A holder that cannot refresh its lock in time, or finds it taken, stops
// writing (Lock.Lost, and every write fails).
//
// Servers that ignore conditional writes are found out first (a probe object
// is written twice with If-None-Match: *). With them the lock is taken by
// checking that no live lock exists, writing one, waiting two seconds and
// reading it back: two runs that start within the same two seconds could both
// pass, which Lock.Note says.
func (s *S3) Lock(ctx context.Context) (*Lock, error) {
	if s.opts.ReadOnly {
		return s.lockReadOnly(ctx)
	}
	conditional, err := s.probeConditional(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", s.loc.Name(), err)
	}
	s.mu.Lock()
	s.conditional = conditional
	s.mu.Unlock()
	me := newHolder(time.Now())
	me.ID, me.LeaseSeconds = s.opts.hostID(), s.staleAfter().Seconds()
	marker, err := holdRunMarker(s.cache, me.Token)
	if err != nil {
		return nil, fmt.Errorf("lock %s: mark the run in the cache folder %s: %w", s.loc.Name(), s.cache, err)
	}
	var l *Lock
	var etag string
	if conditional {
		l, etag, err = s.lockConditional(ctx, me)
	} else {
		l, etag, err = s.lockFallback(ctx, me)
	}
	if err != nil {
		marker.release()
		return nil, err
	}
	s.mu.Lock()
	s.locked, s.lostErr = true, nil
	s.mu.Unlock()

	stop := make(chan struct{})
	done := make(chan struct{})
	go s.refresh(me, etag, conditional, stop, done)
	l.release = func() error {
		defer marker.release()
		var perr error
		if s.lost() == nil {
			pctx, pcancel := context.WithTimeout(context.Background(), time.Minute)
			_, perr = s.pruneRejected(pctx)
			pcancel()
		}
		if err := s.releaseLock(me, stop, done); err != nil {
			return err
		}
		return perr
	}
	l.lost = s.lost
	n, err := s.removeTemporaries(ctx)
	l.Removed = n
	if err == nil {
		l.Pruned, err = s.pruneRejected(ctx)
	}
	if err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// releaseLock stops refreshing the lock and removes it, when it is still
// this run's.
func (s *S3) releaseLock(me Holder, stop, done chan struct{}) error {
	close(stop)
	<-done
	s.mu.Lock()
	s.locked = false
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cur, _, _, err := s.readLock(ctx)
	if err != nil {
		if isNotFound(err) {
			return nil
		}
		return fmt.Errorf("release the lock of %s: %w", s.loc.Name(), err)
	}
	if cur.Token != me.Token {
		return nil // taken over: not ours to remove
	}
	if err := s.client.RemoveObject(ctx, s.loc.Bucket, s.lockKey(), minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("release the lock of %s: %w", s.loc.Name(), err)
	}
	return nil
}

func (s *S3) lockKey() string { return s.loc.Key(ReservedDir + "/lock") }

func (s *S3) putLock(ctx context.Context, key string, h Holder, ifNoneMatch bool, ifMatch string) (string, error) {
	b := h.encode()
	opts := minio.PutObjectOptions{ContentType: "application/json", DisableMultipart: true}
	if ifNoneMatch {
		opts.SetMatchETagExcept("*")
	}
	if ifMatch != "" {
		opts.SetMatchETag(ifMatch)
	}
	info, err := s.client.PutObject(ctx, s.loc.Bucket, key, bytes.NewReader(b), int64(len(b)), opts)
	return info.ETag, err
}

// readLock reads the lock object: its holder (ok false when unreadable), ETag
// and modification time. A lock rewritten while it was read (minio-go reads
// on with If-Match on the ETag it first saw: 412) is read again.
func (s *S3) readLock(ctx context.Context) (h Holder, etag string, mod time.Time, err error) {
	for range 3 {
		if h, etag, mod, err = s.readLockOnce(ctx); !isPreconditionFailed(err) {
			break
		}
	}
	return h, etag, mod, err
}

func (s *S3) readLockOnce(ctx context.Context) (Holder, string, time.Time, error) {
	obj, err := s.client.GetObject(ctx, s.loc.Bucket, s.lockKey(), minio.GetObjectOptions{})
	if err != nil {
		return Holder{}, "", time.Time{}, err
	}
	defer obj.Close()
	info, err := obj.Stat()
	if err != nil {
		return Holder{}, "", time.Time{}, err
	}
	b, err := io.ReadAll(io.LimitReader(obj, 4096))
	if err != nil {
		return Holder{}, "", time.Time{}, err
	}
	h, _ := decodeHolder(b)
	return h, info.ETag, info.LastModified, nil
}

// probeConditional finds out whether the server refuses a second
// If-None-Match: * write of one object.
func (s *S3) probeConditional(ctx context.Context) (bool, error) {
	key := s.loc.Key(ReservedDir + "/probe-" + randomName())
	h := Holder{Token: "probe"}
	defer s.client.RemoveObject(context.WithoutCancel(ctx), s.loc.Bucket, key, minio.RemoveObjectOptions{})
	if _, err := s.putLock(ctx, key, h, true, ""); err != nil {
		if code, status := errorCode(err); code == "NotImplemented" || status == 501 {
			return false, nil
		}
		return false, fmt.Errorf("write a probe object: %w", err)
	}
	_, err := s.putLock(ctx, key, h, true, "")
	if err == nil {
		return false, nil
	}
	if isPreconditionFailed(err) {
		return true, nil
	}
	if code, status := errorCode(err); code == "NotImplemented" || status == 501 {
		return false, nil
	}
	return false, fmt.Errorf("write a probe object: %w", err)
}

// staleFor is how long h's lock may go unrefreshed before it is taken
// over: this run's lease, or the longer one its holder declared.
func (s *S3) staleFor(h Holder) time.Duration {
	return max(s.staleAfter(), h.lease())
}

// stale says why a lock may be taken over, "" when it may not.
func (s *S3) stale(h Holder, modTime time.Time) string {
	if h.Token == "" {
		if time.Since(modTime) > s.staleAfter() {
			return "an unreadable lock, not written for " + time.Since(modTime).Round(time.Second).String()
		}
		return ""
	}
	if runEnded(s.cache, h.Token) {
		return "its process has ended"
	}
	if age := time.Since(modTime); age > s.staleFor(h) {
		return "not refreshed for " + age.Round(time.Second).String()
	}
	return ""
}

func (s *S3) lockConditional(ctx context.Context, me Holder) (*Lock, string, error) {
	for try := 0; try < 3; try++ {
		etag, err := s.putLock(ctx, s.lockKey(), me, true, "")
		if err == nil {
			return &Lock{Holder: me}, etag, nil
		}
		if !isPreconditionFailed(err) {
			return nil, "", fmt.Errorf("lock %s: %w", s.loc.Name(), err)
		}
		cur, curETag, mod, err := s.readLock(ctx)
		if isNotFound(err) {
			continue // released meanwhile: try again
		}
		if err != nil {
			return nil, "", fmt.Errorf("lock %s: read the lock: %w", s.loc.Name(), err)
		}
		why := s.stale(cur, mod)
		if why == "" {
			return nil, "", s.lockedError(cur)
		}
		if s.beforeTakeover != nil {
			s.beforeTakeover()
		}
		_, err = s.putLock(ctx, s.lockKey(), me, false, curETag)
		if err == nil {
			// Neither versitygw nor SeaweedFS checks If-Match and writes
			// in one step: of runs taking over the same stale lock at
			// once, several may have their write accepted
			// (TestS3ConditionalWritesRace). The write that stands is the
			// last: each reads the lock back once the others' have landed.
			if etag, err = s.readBack(ctx, me); err != nil {
				return nil, "", err
			}
			return &Lock{Holder: me, TookOver: &cur, Note: "took over the lock of " + cur.String() + ": " + why}, etag, nil
		}
		if !isPreconditionFailed(err) {
			return nil, "", fmt.Errorf("lock %s: take over a stale lock: %w", s.loc.Name(), err)
		}
		// Another run took it over first: look again.
	}
	cur, _, _, _ := s.readLock(ctx)
	return nil, "", s.lockedError(cur)
}

func (s *S3) lockFallback(ctx context.Context, me Holder) (*Lock, string, error) {
	l := &Lock{Holder: me, Note: "the server does not honour conditional writes: the lock was taken by writing it, waiting " + settleDelay.String() + " and reading it back, which two runs starting within those seconds could both pass"}
	cur, _, mod, err := s.readLock(ctx)
	switch {
	case err == nil:
		why := s.stale(cur, mod)
		if why == "" {
			return nil, "", s.lockedError(cur)
		}
		l.TookOver = &cur
	case !isNotFound(err):
		return nil, "", fmt.Errorf("lock %s: read the lock: %w", s.loc.Name(), err)
	}
	if _, err := s.putLock(ctx, s.lockKey(), me, false, ""); err != nil {
		return nil, "", fmt.Errorf("lock %s: %w", s.loc.Name(), err)
	}
	etag, err := s.readBack(ctx, me)
	if err != nil {
		return nil, "", err
	}
	return l, etag, nil
}

// readBack waits settleDelay, then reads the lock: it is me's (its ETag
// returned), or another run's (a *LockedError).
func (s *S3) readBack(ctx context.Context, me Holder) (string, error) {
	select {
	case <-time.After(settleDelay):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	cur, etag, _, err := s.readLock(ctx)
	if err != nil {
		return "", fmt.Errorf("lock %s: read the lock back: %w", s.loc.Name(), err)
	}
	if cur.Token != me.Token {
		return "", s.lockedError(cur)
	}
	return etag, nil
}

func (s *S3) lockedError(h Holder) *LockedError {
	return &LockedError{Dest: s.loc.Name(), Holder: h, Where: "s3://" + s.loc.Bucket + "/" + s.lockKey(),
		Hint: fmt.Sprintf("a lock not refreshed for %s is taken over", s.staleFor(h))}
}

// refresh rewrites the lock every staleAfter/5 until stop is closed; when the
// lock is found taken, or cannot be rewritten for staleAfter, it is lost.
func (s *S3) refresh(me Holder, etag string, conditional bool, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	every := s.staleAfter() / 5
	last := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		me.Refreshed = time.Now().UTC()
		ifMatch := ""
		if conditional {
			ifMatch = etag
		}
		next, err := s.putLock(ctx, s.lockKey(), me, false, ifMatch)
		cancel()
		switch {
		case err == nil:
			etag, last = next, time.Now()
		case isPreconditionFailed(err):
			// The lock is not as this run last saw it. It may still be
			// this run's: a refresh whose answer came too late (its
			// timeout fired after the server had written it) left a new
			// ETag unseen. Only another holder's token is a takeover.
			rctx, rcancel := context.WithTimeout(context.Background(), every)
			cur, curETag, _, rerr := s.readLock(rctx)
			rcancel()
			switch {
			case rerr == nil && cur.Token == me.Token:
				etag = curETag // try again with it at the next tick
			case rerr == nil || isNotFound(rerr):
				s.loseLock(errors.New("the lock was taken over by another run"))
				return
			case time.Since(last) > s.staleAfter():
				s.loseLock(fmt.Errorf("the lock could not be read back for %s: %w", time.Since(last).Round(time.Second), rerr))
				return
			}
		case time.Since(last) > s.staleAfter():
			s.loseLock(fmt.Errorf("the lock could not be refreshed for %s: %w", time.Since(last).Round(time.Second), err))
			return
		}
	}
}

func (s *S3) loseLock(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lostErr == nil {
		s.lostErr = fmt.Errorf("lost the lock of %s: %w", s.loc.Name(), err)
	}
}

// removeTemporaries empties the local staging folder and aborts the
// multipart uploads an interrupted run left under the prefix.
func (s *S3) removeTemporaries(ctx context.Context) (int, error) {
	dir := filepath.Join(s.cache, "tmp")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("list the temporaries of %s: %w", s.loc.Name(), err)
	}
	n := 0
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return n, fmt.Errorf("remove a temporary of an interrupted run: %w", err)
		}
		n++
	}
	prefix := ""
	if s.loc.Prefix != "" {
		prefix = s.loc.Prefix + "/"
	}
	for up := range s.client.ListIncompleteUploads(ctx, s.loc.Bucket, prefix, true) {
		if up.Err != nil {
			if code, status := errorCode(up.Err); code == "NotImplemented" || status == 501 {
				break
			}
			return n, fmt.Errorf("list the unfinished uploads of %s: %w", s.loc.Name(), up.Err)
		}
		if err := s.client.RemoveIncompleteUpload(ctx, s.loc.Bucket, up.Key); err != nil && !isNotFound(err) {
			return n, fmt.Errorf("abort an unfinished upload to %s: %w", up.Key, err)
		}
		n++
	}
	return n, nil
}

// lockReadOnly is the Lock of a read-only run: it writes nothing, and is
// refused while a live run holds the bucket's lock (what it reads would be
// changing under it).
func (s *S3) lockReadOnly(ctx context.Context) (*Lock, error) {
	cur, _, mod, err := s.readLock(ctx)
	switch {
	case err == nil:
		if s.stale(cur, mod) == "" {
			return nil, s.lockedError(cur)
		}
	case !isNotFound(err):
		return nil, fmt.Errorf("lock %s: read the lock: %w", s.loc.Name(), err)
	}
	s.mu.Lock()
	s.locked = true
	s.mu.Unlock()
	l := &Lock{Holder: newHolder(time.Now())}
	l.release = func() error {
		s.mu.Lock()
		s.locked = false
		s.mu.Unlock()
		return nil
	}
	return l, nil
}
