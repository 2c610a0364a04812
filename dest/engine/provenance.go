package engine

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"
	"time"

	"rsx/dest/state"
	"rsx/fetch"
)

// The documents a run reads from the Source (its Source Description,
// Capability List, lists and indexes, as received) are kept in the state
// with the run, so that an archivist can say what the Source claimed when a
// file was copied. A plan's documents are spooled, as received, to the
// store's temporary folder while they are read; the run that carries the plan
// out stores them (state.DB.PutRunDocuments) and prunes older ones by the
// documented rule. A document is compressed only then, and only when the
// state does not hold its bytes already: a run reads mostly documents an
// earlier run read (a reconcile or an audit reads every part of a Resource
// List again), and compressing each as it was read cost a sixth of a
// reconcile's CPU.

const (
	// maxCapturedDoc is the largest document kept (uncompressed); a larger
	// one is read as usual but not kept.
	maxCapturedDoc = 64 << 20
	// maxCapturedRun bounds the documents one plan keeps (uncompressed: the
	// spool files' size).
	maxCapturedRun = 1 << 30
	// maxCapturedDocs bounds how many: the first read are kept (the
	// Capability List, the indexes, the first parts). A Resource List Index
	// of a million parts kept a file and 400 bytes of memory for each, 400
	// MB at the end of a sync (issue 23), and the history keeps only 256 MiB
	// of documents per copy anyway.
	maxCapturedDocs = 10000
)

// docCapture is what a session keeps of the documents its plan read.
type docCapture struct {
	dir string

	mu      sync.Mutex
	docs    map[string]*capturedDoc // by URL asked for: the last reading
	parts   map[string]bool         // the URLs read as parts of a Resource List Index
	bytes   int64                   // uncompressed, of the docs kept
	maxDocs int                     // maxCapturedDocs (tests set fewer)
	// quota bounds the compressed documents the state keeps of the
	// Source (state.DefaultDocumentBytes; tests set less).
	quota int64
	// vouchBudget bounds the parts a reconcile keeps (vouchingParts).
	vouchBudget int64
}

type capturedDoc struct {
	state.RunDocument
	path string // the spool file: the bytes as received
}

func newDocCapture(dir string) *docCapture {
	return &docCapture{dir: dir, docs: map[string]*capturedDoc{}, parts: map[string]bool{}, maxDocs: maxCapturedDocs, quota: state.DefaultDocumentBytes,
		vouchBudget: vouchBudget}
}

// markPart notes that url is read as a part of a Resource List Index: a run
// that reconciles keeps it only when it lists a file the run wrote
// (storeDocuments).
func (c *docCapture) markPart(url string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.parts[url] = true
	c.mu.Unlock()
}

// room reports whether a reading of url may be kept: it replaces one, or
// fewer than maxDocs are kept.
func (c *docCapture) room(url string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, again := c.docs[url]
	return again || len(c.docs) < c.maxDocs
}

// reset drops what was captured (a new plan).
func (c *docCapture) reset() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.docs {
		os.Remove(d.path)
	}
	c.docs, c.parts, c.bytes = map[string]*capturedDoc{}, map[string]bool{}, 0
}

// take hands the captured documents over, with the URLs read as parts of a
// Resource List Index (the caller removes their files with done), and starts
// afresh.
func (c *docCapture) take() (docs []*capturedDoc, parts map[string]bool, done func()) {
	if c == nil {
		return nil, nil, func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.docs {
		docs = append(docs, d)
	}
	parts = c.parts
	c.docs, c.parts, c.bytes = map[string]*capturedDoc{}, map[string]bool{}, 0
	return docs, parts, func() {
		for _, d := range docs {
			os.Remove(d.path)
		}
	}
}

func (c *docCapture) add(d *capturedDoc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, again := c.docs[d.URL]
	if c.bytes+d.Length > maxCapturedRun || !again && len(c.docs) >= c.maxDocs {
		os.Remove(d.path)
		return
	}
	if again {
		os.Remove(old.path)
		c.bytes -= old.Length
	}
	c.docs[d.URL] = d
	c.bytes += d.Length
}

// capturingClient is the session's client: Get's bodies are kept as they
// are read (documents); downloads (resources) pass through.
type capturingClient struct {
	Client
	cap *docCapture
}

func (cc capturingClient) Get(ctx context.Context, url string) (*fetch.Response, error) {
	if ctx.Value(noCaptureKey{}) != nil {
		return cc.Client.Get(ctx, url)
	}
	resp, err := cc.Client.Get(ctx, url)
	if err != nil || resp == nil || resp.Body == nil || resp.Status < 200 || resp.Status > 299 || !cc.cap.room(url) {
		return resp, err
	}
	f, ferr := os.CreateTemp(cc.cap.dir, "rsx-doc-*")
	if ferr != nil {
		return resp, nil // not kept: the run goes on
	}
	d := &capturedDoc{path: f.Name()}
	d.URL, d.FinalURL, d.Status, d.FetchedAt = url, resp.URL, resp.Status, time.Now()
	if resp.Header != nil {
		d.ETag, d.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	}
	resp.Body = &capturingBody{ReadCloser: resp.Body, cap: cc.cap, doc: d, f: f, w: bufio.NewWriterSize(f, 64<<10), sum: sha256.New()}
	return resp, nil
}

// noCaptureKey marks a context whose documents are read without being
// kept (withoutCapture).
type noCaptureKey struct{}

// withoutCapture returns a context whose documents the session reads
// without keeping them: an audit records no run to store them with, and
// compressing and hashing every document it reads into a spool file took a
// sixth of its CPU.
func withoutCapture(ctx context.Context) context.Context {
	return context.WithValue(ctx, noCaptureKey{}, true)
}

// capturingBody tees a document's body into its spool file; the document is
// kept when the body is read to its end.
type capturingBody struct {
	io.ReadCloser
	cap  *docCapture
	doc  *capturedDoc
	f    *os.File
	w    *bufio.Writer
	sum  hash.Hash
	n    int64
	off  bool // not kept (too large, or a spool error)
	done bool
}

func (b *capturingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.off {
		b.n += int64(n)
		if b.n > maxCapturedDoc {
			b.drop()
		} else {
			b.sum.Write(p[:n])
			if _, werr := b.w.Write(p[:n]); werr != nil {
				b.drop()
			}
		}
	}
	if errors.Is(err, io.EOF) && !b.off && !b.done {
		b.done = true
		cerr := b.w.Flush()
		if ferr := b.f.Close(); cerr == nil {
			cerr = ferr
		}
		if cerr != nil {
			os.Remove(b.f.Name())
			b.off = true
		} else {
			b.doc.Length = b.n
			b.doc.SHA256 = hex.EncodeToString(b.sum.Sum(nil))
			b.cap.add(b.doc)
		}
	}
	return n, err
}

func (b *capturingBody) drop() {
	if b.off {
		return
	}
	b.off = true
	b.f.Close()
	os.Remove(b.f.Name())
}

// Close ends the body; a document not read to its end is not kept.
func (b *capturingBody) Close() error {
	if !b.done {
		b.drop()
	}
	return b.ReadCloser.Close()
}

// storeDocuments stores the documents the run's plan read with the run, and
// prunes the Source's documents by state.PruneDocuments's rule (its quota:
// other Sources' documents are not touched). A run that reconciles a copy
// keeps, of a Resource List Index's parts, only those that list a file it
// wrote (vouchingParts).
func (s *Dest) storeDocuments(ctx context.Context, runID, sourceID int64, reconcile bool) error {
	docs, parts, done := s.capture.take()
	defer done()
	if reconcile && len(parts) > 0 {
		var err error
		if docs, err = s.vouchingParts(ctx, runID, docs, parts); err != nil {
			return err
		}
	}
	if len(docs) == 0 {
		return nil
	}
	rows := make([]state.RunDocument, len(docs))
	gzipped := make([]string, len(docs)) // compressed before the transaction
	defer func() {
		for _, name := range gzipped {
			if name != "" {
				os.Remove(name)
			}
		}
	}()
	for i, d := range docs {
		rows[i] = d.RunDocument
		have, err := s.db.HaveDocumentBlob(ctx, d.SHA256)
		if err != nil {
			return err
		}
		if !have {
			if gzipped[i], err = gzipFile(d.path, s.capture.dir); err != nil {
				return fmt.Errorf("record the run's document %s: %w", d.URL, err)
			}
		}
	}
	err := s.db.PutRunDocuments(ctx, runID, rows, func(i int) ([]byte, error) {
		if gzipped[i] == "" { // stored by another run since it was asked
			name, err := gzipFile(docs[i].path, s.capture.dir)
			if err != nil {
				return nil, err
			}
			gzipped[i] = name
		}
		return os.ReadFile(gzipped[i])
	})
	if err != nil {
		return err
	}
	return s.db.PruneDocuments(ctx, sourceID, s.capture.quota)
}

// gzipFile compresses the file name into a new file of dir and returns the
// new file's name.
func gzipFile(name, dir string) (string, error) {
	in, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, "rsx-doc-*.gz")
	if err != nil {
		return "", err
	}
	gz, _ := gzip.NewWriterLevel(out, gzip.BestSpeed)
	_, err = io.Copy(gz, in)
	if cerr := gz.Close(); err == nil {
		err = cerr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}
