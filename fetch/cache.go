package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// diskCache keeps bodies with their validators for conditional GETs.
//
// One file per URL (named by the SHA-256 of the URL) holds the raw body as
// received, then a JSON trailer, its length (4 bytes, big-endian) and a
// magic string. Files are written to a temporary name and renamed into
// place, so a reader sees a whole entry or none. Anything that does not
// check out is treated as absent.
type diskCache struct {
	dir string

	mu    sync.Mutex
	swept map[string]bool // subdirectories cleared of stale temporary files
}

// staleTemp is how long a temporary file of the cache may go unwritten
// before it counts as the leftover of a process that was killed: a body being
// cached is written as it arrives, and a try stalls for no more than the
// client's timeouts.
const staleTemp = 24 * time.Hour

// sweep removes, once per subdirectory and client, the temporary files that
// a killed process left there (untouched for staleTemp).
func (c *diskCache) sweep(dir string) {
	c.mu.Lock()
	done := c.swept[dir]
	if c.swept == nil {
		c.swept = map[string]bool{}
	}
	c.swept[dir] = true
	c.mu.Unlock()
	if done {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

const cacheMagic = "rsxcach1"

// cacheMeta is the trailer of a cache file.
type cacheMeta struct {
	URL    string      `json:"url"`
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Stored time.Time   `json:"stored"`
	Size   int64       `json:"size"`
	SHA256 string      `json:"sha256"`
}

// cacheEntry is an opened cache file positioned at the body.
type cacheEntry struct {
	meta *cacheMeta
	body io.ReadCloser
}

func (c *diskCache) path(rawURL string) string {
	sum := sha256.Sum256([]byte(rawURL))
	name := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, name[:2], name)
}

// readMeta reads and checks the trailer of an open cache file.
func readMeta(f *os.File, rawURL string) (*cacheMeta, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	tail := int64(4 + len(cacheMagic))
	if size < tail {
		return nil, errors.New("cache file too short")
	}
	buf := make([]byte, tail)
	if _, err := f.ReadAt(buf, size-tail); err != nil {
		return nil, err
	}
	if string(buf[4:]) != cacheMagic {
		return nil, errors.New("cache file has no trailer")
	}
	n := int64(binary.BigEndian.Uint32(buf[:4]))
	if n > size-tail || n > 1<<20 {
		return nil, errors.New("cache trailer length out of range")
	}
	js := make([]byte, n)
	if _, err := f.ReadAt(js, size-tail-n); err != nil {
		return nil, err
	}
	var m cacheMeta
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, fmt.Errorf("cache trailer: %w", err)
	}
	if m.URL != rawURL {
		return nil, errors.New("cache entry is for another URL")
	}
	if m.Size != size-tail-n {
		return nil, errors.New("cache body size does not match")
	}
	return &m, nil
}

// lookup returns the validators of the entry for rawURL, or nil.
func (c *diskCache) lookup(rawURL string) *cacheMeta {
	f, err := os.Open(c.path(rawURL))
	if err != nil {
		return nil
	}
	defer f.Close()
	m, err := readMeta(f, rawURL)
	if err != nil {
		return nil
	}
	if m.Header.Get("ETag") == "" && m.Header.Get("Last-Modified") == "" {
		return nil
	}
	return m
}

// open opens the entry for rawURL after checking its body's digest. A bad
// entry is removed.
func (c *diskCache) open(rawURL string) (*cacheEntry, error) {
	p := c.path(rawURL)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open cache entry for %s: %w", rawURL, err)
	}
	bad := func(err error) (*cacheEntry, error) {
		f.Close()
		_ = os.Remove(p)
		return nil, fmt.Errorf("cache entry for %s: %w", rawURL, err)
	}
	m, err := readMeta(f, rawURL)
	if err != nil {
		return bad(err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, m.Size)); err != nil {
		return bad(err)
	}
	if hex.EncodeToString(h.Sum(nil)) != m.SHA256 {
		return bad(errors.New("body digest does not match"))
	}
	return &cacheEntry{meta: m, body: struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, 0, m.Size), f}}, nil
}

func (c *diskCache) remove(rawURL string) { _ = os.Remove(c.path(rawURL)) }

// cacheWriter receives a body being downloaded and becomes a cache entry
// only when commit is called after the whole body was written.
type cacheWriter struct {
	cache  *diskCache
	url    string
	status int
	header http.Header
	f      *os.File
	hash   hash.Hash
	size   int64
	failed bool
}

// create starts an entry; nil when the cache directory is unusable, which
// only means the body is not cached.
func (c *diskCache) create(rawURL string, status int, header http.Header) *cacheWriter {
	dir := filepath.Dir(c.path(rawURL))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	c.sweep(dir)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return nil
	}
	return &cacheWriter{cache: c, url: rawURL, status: status, header: header.Clone(), f: f, hash: sha256.New()}
}

func (w *cacheWriter) write(p []byte) {
	if w.failed {
		return
	}
	if _, err := w.f.Write(p); err != nil {
		w.abort()
		return
	}
	w.hash.Write(p)
	w.size += int64(len(p))
}

func (w *cacheWriter) commit() {
	if w.failed {
		return
	}
	m := cacheMeta{
		URL: w.url, Status: w.status, Header: cacheableHeader(w.header),
		Stored: time.Now().UTC(), Size: w.size, SHA256: hex.EncodeToString(w.hash.Sum(nil)),
	}
	js, err := json.Marshal(m)
	if err != nil {
		w.abort()
		return
	}
	var tail bytes.Buffer
	tail.Write(js)
	_ = binary.Write(&tail, binary.BigEndian, uint32(len(js)))
	tail.WriteString(cacheMagic)
	if _, err := w.f.Write(tail.Bytes()); err != nil {
		w.abort()
		return
	}
	if err := w.f.Close(); err != nil {
		w.failed = true
		_ = os.Remove(w.f.Name())
		return
	}
	w.failed = true // nothing more to do either way
	if err := os.Rename(w.f.Name(), w.cache.path(w.url)); err != nil {
		_ = os.Remove(w.f.Name())
	}
}

func (w *cacheWriter) abort() {
	if w.failed {
		return
	}
	w.failed = true
	w.f.Close()
	_ = os.Remove(w.f.Name())
}

// cacheableHeader drops headers that describe one connection, not the body.
func cacheableHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, k := range []string{"Connection", "Keep-Alive", "Transfer-Encoding", "Set-Cookie", "Date", "Age"} {
		out.Del(k)
	}
	return out
}

// shouldCache reports whether a response may be stored: a 200 with a
// validator, not marked no-store.
func shouldCache(resp *http.Response) bool {
	if resp.StatusCode != http.StatusOK {
		return false
	}
	if strings.Contains(strings.ToLower(resp.Header.Get("Cache-Control")), "no-store") {
		return false
	}
	return resp.Header.Get("ETag") != "" || resp.Header.Get("Last-Modified") != ""
}
