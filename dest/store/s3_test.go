package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"rsx/dest/state"
	"rsx/internal/s3test"
)

// The S3 tests run against a real S3 server on a free loopback port:
// versitygw (RSX_VERSITYGW, or on PATH; scripts/versitygw builds it) or
// SeaweedFS (RSX_SEAWEEDFS; scripts/seaweedfs builds it), as
// internal/s3test chooses.

const (
	testAccess = "rsxtestaccess"
	testSecret = "rsxtestsecretkey0123456789"
)

type gateway struct {
	srv      *s3test.Server
	endpoint string
	root     string // the server's folder of buckets, "" when objects are not files (SeaweedFS)
	client   *minio.Client
	pid      int // the server's process
}

// startGateway starts an S3 server with one bucket, or skips the test.
func startGateway(t testing.TB, bucket string) *gateway {
	t.Helper()
	s := s3test.Start(t, s3test.Options{Access: testAccess, Secret: testSecret, Bucket: bucket})
	return &gateway{srv: s, endpoint: s.Endpoint, root: s.Files, client: s.Client, pid: s.PID}
}

func (g *gateway) url(bucketAndPrefix string) string {
	return "s3://" + bucketAndPrefix + "?endpoint=" + g.endpoint + "&region=us-east-1"
}

func getenv(k string) string {
	switch k {
	case "AWS_ACCESS_KEY_ID":
		return testAccess
	case "AWS_SECRET_ACCESS_KEY":
		return testSecret
	}
	return ""
}

func openS3(t *testing.T, g *gateway, where string, opts Options) *S3 {
	t.Helper()
	if opts.Getenv == nil {
		opts.Getenv = getenv
	}
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	st, err := Open(context.Background(), g.url(where), opts)
	if err != nil {
		t.Fatal(err)
	}
	return st.(*S3)
}

func TestS3Writes(t *testing.T) {
	g := startGateway(t, "copy")
	ctx := context.Background()
	s := openS3(t, g, "copy/mirror/one", Options{})
	l, err := s.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l.Note != "" {
		t.Errorf("%s honours conditional writes, but: %s", g.srv.Kind, l.Note)
	}
	write(t, s, "example.org/a/b.txt", "first")
	write(t, s, "example.org/a/b.txt", "second")
	write(t, s, "example.org/c", "c")
	if got := read(t, s, "example.org/a/b.txt"); got != "second" {
		t.Errorf("read %q", got)
	}
	// The object is where the URL says, with its content type.
	info, err := g.client.StatObject(ctx, "copy", "mirror/one/example.org/a/b.txt", minio.StatObjectOptions{})
	if err != nil || info.ContentType != "text/plain" || info.Size != 6 {
		t.Errorf("object %+v %v", info, err)
	}
	fi, err := s.Stat(ctx, "example.org/a/b.txt")
	if err != nil || fi.Size != 6 || fi.ETag == "" {
		t.Errorf("Stat %+v %v", fi, err)
	}
	if _, err := s.Stat(ctx, "example.org/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a missing object: %v", err)
	}
	if _, err := s.Open(ctx, "example.org/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing object: %v", err)
	}

	// Abandoned and rejected writes leave the object; rejected bytes are kept.
	w, _ := s.Create(ctx, "example.org/a/b.txt", Meta{})
	io.WriteString(w, "partial")
	w.Abort()
	w, _ = s.Create(ctx, "example.org/a/b.txt", Meta{})
	io.WriteString(w, "tampered")
	kept, err := w.Reject(ctx)
	if err != nil || kept != "s3://copy/mirror/one/.rsx/rejected/example.org/a/b.txt" {
		t.Errorf("Reject: %s %v", kept, err)
	}
	if got := read(t, s, "example.org/a/b.txt"); got != "second" {
		t.Errorf("after Abort and Reject: %q", got)
	}
	if entries, _ := os.ReadDir(s.TempDir()); len(entries) != 0 {
		t.Errorf("staging files left: %v", entries)
	}

	// Walk lists the copy, not .rsx, and nothing outside the prefix.
	g.client.PutObject(ctx, "copy", "mirror/other/x", strings.NewReader("x"), 1, minio.PutObjectOptions{})
	g.client.PutObject(ctx, "copy", "mirror/onex", strings.NewReader("x"), 1, minio.PutObjectOptions{})
	var paths []string
	if err := s.Walk(ctx, func(fi FileInfo) error { paths = append(paths, fi.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	if strings.Join(paths, " ") != "example.org/a/b.txt example.org/c" {
		t.Errorf("Walk: %q", paths)
	}
	if err := s.Remove(ctx, "example.org/c"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(ctx, "example.org/c"); err != nil {
		t.Errorf("removing a missing object: %v", err)
	}
	if _, err := s.Stat(ctx, "example.org/c"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Remove: %v", err)
	}
	if _, err := s.Create(ctx, ".rsx/state.db", Meta{}); err == nil {
		t.Error("a write into .rsx was accepted")
	}
	if err := s.Sync(ctx); err != nil || s.CaseInsensitive() {
		t.Errorf("Sync %v, CaseInsensitive %v", err, s.CaseInsensitive())
	}
}

func TestS3OpenErrors(t *testing.T) {
	g := startGateway(t, "present")
	ctx := context.Background()
	_, err := Open(ctx, g.url("present"), Options{Getenv: func(string) string { return "" }, CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") {
		t.Errorf("no credentials: %v", err)
	}
	_, err = Open(ctx, g.url("absent"), Options{Getenv: getenv, CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "bucket absent does not exist") {
		t.Errorf("missing bucket: %v", err)
	}
	_, err = Open(ctx, g.url("present"), Options{Getenv: func(k string) string {
		if k == "AWS_SECRET_ACCESS_KEY" {
			return "wrong-secret"
		}
		return getenv(k)
	}, CacheDir: t.TempDir()})
	if err == nil {
		t.Error("a wrong secret was accepted")
	}
}

func TestS3Lock(t *testing.T) {
	g := startGateway(t, "locks")
	ctx := context.Background()
	a := openS3(t, g, "locks/p", Options{})
	b := openS3(t, g, "locks/p", Options{})
	if _, err := b.StatePath(ctx); err == nil {
		t.Error("StatePath before Lock")
	}
	la, err := a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(ctx)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.Token != la.Holder.Token || !strings.Contains(err.Error(), "s3://locks/p/.rsx/lock") {
		t.Fatalf("second lock: %v", err)
	}
	if err := la.Release(); err != nil {
		t.Fatal(err)
	}
	lb, err := b.Lock(ctx)
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	if lb.TookOver != nil {
		t.Errorf("took over a released lock: %+v", lb.TookOver)
	}
	lb.Release()

	// A lock whose run has ended here (its marker in this cache folder is
	// no longer locked: a killed run) is taken over at once.
	dead := newHolder(time.Now().Add(-time.Hour))
	m, err := holdRunMarker(a.CacheDir(), dead.Token)
	if err != nil || m == nil {
		t.Skipf("no run markers here: %v", err)
	}
	m.f.Close() // as the kernel does for a process killed
	putHolder(t, g, "locks", "p/.rsx/lock", dead)
	g.client.PutObject(ctx, "locks", "p/.rsx/tmp-marker", strings.NewReader("x"), 1, minio.PutObjectOptions{})
	os.WriteFile(filepath.Join(a.CacheDir(), "tmp", "stage-left"), []byte("x"), 0o644)
	la, err = a.Lock(ctx)
	if err != nil {
		t.Fatalf("over an ended run's lock: %v", err)
	}
	if la.TookOver == nil || la.TookOver.Token != dead.Token || !strings.Contains(la.Note, "its process has ended") {
		t.Errorf("TookOver %+v, note %q", la.TookOver, la.Note)
	}
	if la.Removed < 1 {
		t.Errorf("removed %d temporaries", la.Removed)
	}
	la.Release()

	// A live run in another PID namespace with this host name (a container
	// with host networking) whose pid is no process here keeps its lock: a
	// host name and a pid do not identify a run.
	host, _ := os.Hostname()
	gone := exec.Command("true")
	gone.Run()
	twin := Holder{PID: gone.Process.Pid, Host: host, Started: time.Now(), Token: "0123456789abcdef01234567", Refreshed: time.Now()}
	putHolder(t, g, "locks", "p/.rsx/lock", twin)
	_, err = a.Lock(ctx)
	if !errors.As(err, &le) || le.Holder.Token != twin.Token {
		t.Fatalf("the lock of a live run with this host name was taken: %v", err)
	}
	if want := "in use by run " + twin.Token + " on host " + host; !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not say %q", err, want)
	}

	// A lock of another host is taken over only once it is stale.
	other := Holder{PID: 1, Host: "elsewhere.example", Started: time.Now(), Token: "other", Refreshed: time.Now()}
	putHolder(t, g, "locks", "p/.rsx/lock", other)
	if _, err := a.Lock(ctx); !errors.As(err, &le) || le.Holder.Host != "elsewhere.example" {
		t.Fatalf("a live lock of another host: %v", err)
	}
	short := openS3(t, g, "locks/p", Options{LockStaleAfter: 1500 * time.Millisecond})
	time.Sleep(2 * time.Second)
	ls, err := short.Lock(ctx)
	if err != nil {
		t.Fatalf("a stale lock: %v", err)
	}
	if ls.TookOver == nil || ls.TookOver.Token != "other" || !strings.Contains(ls.Note, "not refreshed for") {
		t.Errorf("TookOver %+v, note %q", ls.TookOver, ls.Note)
	}
	// The holder refreshes its lock, so that it does not go stale while it runs.
	time.Sleep(2 * time.Second)
	if _, err := a.Lock(ctx); !errors.As(err, &le) || le.Holder.Token != ls.Holder.Token {
		t.Errorf("a refreshed lock was not held: %v", err)
	}
	if err := ls.Lost(); err != nil {
		t.Errorf("lost: %v", err)
	}
	// A refresh the server wrote after its timeout had fired leaves an
	// ETag the holder never saw: the lock is still its own, not taken
	// over (CI saw a killed-run test fail on this under load).
	putHolder(t, g, "locks", "p/.rsx/lock", ls.Holder)
	time.Sleep(1500 * time.Millisecond)
	if err := ls.Lost(); err != nil {
		t.Fatalf("its own lock, rewritten with an ETag it had not seen, was called lost: %v", err)
	}
	// A lock taken from its holder stops its writes.
	putHolder(t, g, "locks", "p/.rsx/lock", other)
	deadline := time.Now().Add(5 * time.Second)
	for ls.Lost() == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if ls.Lost() == nil {
		t.Fatal("the holder did not notice its lock was taken")
	}
	if _, err := short.Create(ctx, "x", Meta{}); err == nil || !strings.Contains(err.Error(), "lost the lock") {
		t.Errorf("a write after the lock was lost: %v", err)
	}
	ls.Release()
	if cur, _, _, err := a.readLock(ctx); err != nil || cur.Token != "other" {
		t.Errorf("Release removed a lock that was not its own: %+v %v", cur, err)
	}
}

func putHolder(t *testing.T, g *gateway, bucket, key string, h Holder) {
	t.Helper()
	b := h.encode()
	if _, err := g.client.PutObject(context.Background(), bucket, key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestS3StateTravels: the state is stored in the bucket, and a run from
// another, empty working folder continues from it.
func TestS3StateTravels(t *testing.T) {
	g := startGateway(t, "travel")
	ctx := context.Background()
	src := "http://example.org/capabilitylist.xml"

	// Machine A: a first run records three resources and publishes its state.
	a := openS3(t, g, "travel/copy", Options{})
	la, err := a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path, err := a.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a fresh destination has a state: %v", err)
	}
	db, err := state.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.EnsureSource(ctx, src)
	publishes := 0
	w := db.NewWriter(state.WriterOptions{BatchSize: 2, BeforeCommit: a.Sync, AfterCommit: func(ctx context.Context) error {
		publishes++
		return db.Snapshot(ctx, func(p string) error { return a.PublishState(ctx, p) })
	}})
	for _, name := range []string{"a", "b", "c"} {
		write(t, a, "example.org/"+name, name)
		r := state.Resource{SourceID: s.ID, URI: "http://example.org/" + name, Path: "example.org/" + name, Length: 1}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if publishes != 2 {
		t.Errorf("published %d times, want after each of 2 batches", publishes)
	}
	db.Close()
	la.Release()
	if info, err := g.client.StatObject(ctx, "travel", "copy/.rsx/state/manifest.json", minio.StatObjectOptions{}); err != nil || info.Size == 0 {
		t.Fatalf("state manifest: %+v %v", info, err)
	}

	// Machine B: an empty working folder; the state comes from the bucket.
	b := openS3(t, g, "travel/copy", Options{})
	lb, err := b.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pathB, err := b.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(pathB) == filepath.Dir(path) {
		t.Fatal("both runs used one working folder")
	}
	dbB, err := state.Open(ctx, pathB)
	if err != nil {
		t.Fatal(err)
	}
	sB, err := dbB.Source(ctx, src)
	if err != nil {
		t.Fatalf("the Source's state did not travel: %v", err)
	}
	if c, _ := dbB.Count(ctx, sB.ID); c.Resources != 3 {
		t.Errorf("machine B sees %d resources, want 3", c.Resources)
	}
	if got := read(t, b, "example.org/b"); got != "b" {
		t.Errorf("machine B reads %q", got)
	}
	// B continues: one more resource, published at the end.
	wB := dbB.NewWriter(state.WriterOptions{})
	r := state.Resource{SourceID: sB.ID, URI: "http://example.org/d", Path: "example.org/d", Length: 1}
	wB.PutResource(ctx, &r)
	wB.Close(ctx)
	if err := dbB.Snapshot(ctx, func(p string) error { return b.PublishState(ctx, p) }); err != nil {
		t.Fatal(err)
	}
	dbB.Close()
	lb.Release()

	// Back on A: its local copy is older than the bucket's, so it is fetched again.
	la, err = a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path, err = a.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err = state.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ = db.Source(ctx, src)
	if c, _ := db.Count(ctx, s.ID); c.Resources != 4 {
		t.Errorf("machine A sees %d resources after B's run, want 4", c.Resources)
	}
	db.Close()
	la.Release()

	// A run whose fetched state is no longer the bucket's may not publish over it.
	la, _ = a.Lock(ctx)
	path, _ = a.StatePath(ctx)
	manifest := getObject(t, g, "travel", "copy/.rsx/state/manifest.json")
	other := strings.Replace(manifest, `"written"`, `"other": "another run's",`+"\n"+`"written"`, 1)
	g.client.PutObject(ctx, "travel", "copy/.rsx/state/manifest.json", strings.NewReader(other), int64(len(other)), minio.PutObjectOptions{})
	err = a.PublishState(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "changed by another run") {
		t.Errorf("publish over a newer state: %v", err)
	}
	la.Release()
	g.client.PutObject(ctx, "travel", "copy/.rsx/state/manifest.json", strings.NewReader(manifest), int64(len(manifest)), minio.PutObjectOptions{})

	// A local copy ahead of the bucket's (published, then more work, then a
	// crash before the next publish) is kept.
	la, _ = a.Lock(ctx)
	path, _ = a.StatePath(ctx)
	db, _ = state.Open(ctx, path)
	w = db.NewWriter(state.WriterOptions{})
	r = state.Resource{SourceID: s.ID, URI: "http://example.org/e", Path: "example.org/e", Length: 1}
	w.PutResource(ctx, &r)
	w.Close(ctx)
	db.Close()
	la.Release()
	la, _ = a.Lock(ctx)
	path, _ = a.StatePath(ctx)
	db, _ = state.Open(ctx, path)
	if c, _ := db.Count(ctx, s.ID); c.Resources != 5 {
		t.Errorf("the local copy ahead of the bucket was replaced: %d resources", c.Resources)
	}
	db.Close()
	la.Release()
}

func TestS3RemovesUnfinishedUploads(t *testing.T) {
	g := startGateway(t, "uploads")
	ctx := context.Background()
	core := minio.Core{Client: g.client}
	id, err := core.NewMultipartUpload(ctx, "uploads", "p/example.org/big", minio.PutObjectOptions{})
	if err != nil {
		t.Skipf("the server does not start multipart uploads: %v", err)
	}
	if _, err := core.NewMultipartUpload(ctx, "uploads", "elsewhere/big", minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	s := openS3(t, g, "uploads/p", Options{})
	l, err := s.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l.Removed != 1 {
		t.Errorf("removed %d, want the one unfinished upload under the prefix", l.Removed)
	}
	var left []string
	for up := range g.client.ListIncompleteUploads(ctx, "uploads", "", true) {
		left = append(left, up.Key)
	}
	if fmt.Sprint(left) != "[elsewhere/big]" {
		t.Errorf("unfinished uploads left: %v (removed %s)", left, id)
	}
}

// TestS3LockFallback takes the lock the way it is taken on servers that
// ignore conditional writes.
func TestS3LockFallback(t *testing.T) {
	g := startGateway(t, "fallback")
	ctx := context.Background()
	a := openS3(t, g, "fallback/p", Options{})
	b := openS3(t, g, "fallback/p", Options{})
	me := newHolder(time.Now())
	l, _, err := a.lockFallback(ctx, me)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l.Note, "does not honour conditional writes") || l.TookOver != nil {
		t.Errorf("lock %+v", l)
	}
	var le *LockedError
	if _, _, err := b.lockFallback(ctx, newHolder(time.Now())); !errors.As(err, &le) || le.Holder.Token != me.Token {
		t.Errorf("second lock: %v", err)
	}
	// A lock overwritten while a run waits to read its own back is not taken.
	other := Holder{PID: 1, Host: "elsewhere.example", Started: time.Now(), Token: "other"}
	g.client.RemoveObject(ctx, "fallback", "p/.rsx/lock", minio.RemoveObjectOptions{})
	done := make(chan error)
	go func() {
		_, _, err := b.lockFallback(ctx, newHolder(time.Now()))
		done <- err
	}()
	time.Sleep(settleDelay / 2)
	putHolder(t, g, "fallback", "p/.rsx/lock", other)
	if err := <-done; !errors.As(err, &le) || le.Holder.Token != "other" {
		t.Errorf("a lock overwritten meanwhile: %v", err)
	}
}
