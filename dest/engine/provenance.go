package engine

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// file was copied. A plan's documents are spooled, compressed, to the
// store's temporary folder while they are read; the run that carries the plan
// out stores them (state.DB.PutRunDocuments) and prunes older ones by the
// documented rule.

const (
	// maxCapturedDoc is the largest document kept (uncompressed); a larger
	// one is read as usual but not kept.
	maxCapturedDoc = 64 << 20
	// maxCapturedRun bounds the documents one plan keeps (uncompressed).
	maxCapturedRun = 1 << 30
)

// docCapture is what a session keeps of the documents its plan read.
type docCapture struct {
	dir string

	mu    sync.Mutex
	docs  map[string]*capturedDoc // by URL asked for: the last reading
	bytes int64                   // uncompressed, of the docs kept
}

type capturedDoc struct {
	state.RunDocument
	path string // the gzip spool file
}

func newDocCapture(dir string) *docCapture {
	return &docCapture{dir: dir, docs: map[string]*capturedDoc{}}
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
	c.docs, c.bytes = map[string]*capturedDoc{}, 0
}

// take hands the captured documents over (the caller removes their files
// with done) and starts afresh.
func (c *docCapture) take() (docs []*capturedDoc, done func()) {
	if c == nil {
		return nil, func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.docs {
		docs = append(docs, d)
	}
	c.docs, c.bytes = map[string]*capturedDoc{}, 0
	return docs, func() {
		for _, d := range docs {
			os.Remove(d.path)
		}
	}
}

func (c *docCapture) add(d *capturedDoc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+d.Length > maxCapturedRun {
		os.Remove(d.path)
		return
	}
	if old, ok := c.docs[d.URL]; ok {
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
	if err != nil || resp == nil || resp.Body == nil || resp.Status < 200 || resp.Status > 299 {
		return resp, err
	}
	f, ferr := os.CreateTemp(cc.cap.dir, "rsx-doc-*.gz")
	if ferr != nil {
		return resp, nil // not kept: the run goes on
	}
	d := &capturedDoc{path: f.Name()}
	d.URL, d.FinalURL, d.Status, d.FetchedAt = url, resp.URL, resp.Status, time.Now()
	if resp.Header != nil {
		d.ETag, d.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	resp.Body = &capturingBody{ReadCloser: resp.Body, cap: cc.cap, doc: d, f: f, gz: gz, sum: sha256.New()}
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
	gz   *gzip.Writer
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
			if _, werr := b.gz.Write(p[:n]); werr != nil {
				b.drop()
			}
		}
	}
	if errors.Is(err, io.EOF) && !b.off && !b.done {
		b.done = true
		cerr := b.gz.Close()
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
// prunes the history's documents by state.PruneDocuments's rule.
func (s *Session) storeDocuments(ctx context.Context, runID, sourceID int64) error {
	docs, done := s.capture.take()
	defer done()
	if len(docs) == 0 {
		return nil
	}
	rows := make([]state.RunDocument, len(docs))
	for i, d := range docs {
		rows[i] = d.RunDocument
	}
	err := s.db.PutRunDocuments(ctx, runID, rows, func(i int) ([]byte, error) { return os.ReadFile(docs[i].path) })
	if err != nil {
		return err
	}
	return s.db.PruneDocuments(ctx, sourceID, state.DefaultDocumentBytes)
}
