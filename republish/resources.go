package republish

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

// A copy is served as the state recorded it: with the media type its Source
// declared, its length, an ETag of its digest and the time the copy last
// changed (conditional requests and ranges as net/http answers them). Its
// bytes are never served as good unless they match what the copy verified:
//
//   - a file missing, or whose size is not the recorded length, is not
//     served (503: the copy is damaged, or a run is changing it);
//   - a whole file is hashed as it is sent, and its last byte is held back
//     until the digest is checked: a file that no longer matches ends the
//     connection before it is complete, so that a client never holds the
//     whole of bad bytes with a 200;
//   - a range of a file, a HEAD and a 304 Not Modified are answered only
//     once the whole file was hashed and matched (kept for as long as the
//     file keeps its size and time).

// serveCopy answers the copy at path p.
func (s *Server) serveCopy(w http.ResponseWriter, r *http.Request, g *generation, p string) {
	var row state.Resource
	ok, err := g.view.f.CopyAt(r.Context(), p, &row)
	if err != nil {
		s.note(err.Error())
		http.Error(w, "the copy's state could not be read", http.StatusInternalServerError)
		return
	}
	if !ok || g.byID[row.SourceID] == nil || !listed(&row) {
		http.NotFound(w, r)
		return
	}
	alg, want, ok := checkDigest(row.Digests)
	if !ok {
		http.NotFound(w, r)
		return
	}
	fi, err := s.st.Stat(r.Context(), p)
	if err != nil || fi.Size != row.Length {
		what := "it is gone"
		if err == nil {
			what = fmt.Sprintf("its size is %d bytes, the copy recorded %d", fi.Size, row.Length)
		} else if !errors.Is(err, fs.ErrNotExist) {
			what = err.Error()
		}
		s.unavailable(w, p, what)
		return
	}
	if answersWithoutBytes(r) && !s.verify.ok(p, fi, alg, want) && !etagIsDigest(fi.ETag, alg, want) {
		// A HEAD, or a 304 Not Modified, says the copy is what its ETag
		// names without sending a byte to be checked as it goes: the file
		// is checked first.
		if err := s.checkFile(r.Context(), p, alg, want, row.Length); err != nil {
			s.unavailable(w, p, err.Error())
			return
		}
		s.verify.add(p, fi, alg, want)
	}
	hdr := w.Header()
	hdr.Set("ETag", `"`+alg+"-"+hex.EncodeToString(want)+`"`)
	hdr.Set("Content-Type", mediaType(row.Type, p))
	hdr.Set("Cache-Control", "no-cache")
	var body io.ReadCloser
	if sk, ok := s.st.(interface {
		OpenSeeker(ctx context.Context, p string) (io.ReadSeekCloser, error)
	}); ok {
		body, err = sk.OpenSeeker(r.Context(), p)
	} else {
		body, err = s.st.Open(r.Context(), p)
	}
	if err != nil {
		s.unavailable(w, p, err.Error())
		return
	}
	defer body.Close()
	rs, seekable := body.(io.ReadSeeker)
	if r.Header.Get("Range") != "" && seekable {
		if !s.verify.ok(p, fi, alg, want) && !etagIsDigest(fi.ETag, alg, want) {
			if err := checkWhole(rs, alg, want, row.Length); err != nil {
				s.unavailable(w, p, err.Error())
				return
			}
			s.verify.add(p, fi, alg, want)
		}
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			s.unavailable(w, p, err.Error())
			return
		}
		http.ServeContent(w, r, "", row.FetchedAt, rs)
		return
	}
	// The whole file, checked as it goes. (A store whose files cannot seek
	// serves the whole file for a range, as RFC 9110 allows.)
	r.Header.Del("Range")
	vr := &verifyingReader{r: body, size: row.Length, h: model.NewHash(alg), want: want}
	http.ServeContent(w, r, "", row.FetchedAt, vr)
	if vr.failed != nil {
		s.note(fmt.Sprintf("%s: not served: %v", p, vr.failed))
		panic(http.ErrAbortHandler)
	}
}

// answersWithoutBytes tells a request whose answer may vouch for the copy
// without its bytes: a HEAD, or a conditional GET that a 304 answers.
func answersWithoutBytes(r *http.Request) bool {
	return r.Method == http.MethodHead || r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != ""
}

// checkFile hashes the file at p whole and compares it with the digest and
// length the copy recorded.
func (s *Server) checkFile(ctx context.Context, p, alg string, want []byte, length int64) error {
	f, err := s.st.Open(ctx, p)
	if err != nil {
		return err
	}
	defer f.Close()
	return checkWhole(f, alg, want, length)
}

// etagIsDigest tells a bucket's object whose ETag is the MD5 of its bytes
// (an object uploaded whole) and the copy's recorded MD5: its bytes are
// those the copy verified, as the server stored them.
func etagIsDigest(etag, alg string, want []byte) bool {
	etag = strings.Trim(etag, `"`)
	return alg == "md5" && len(etag) == 32 && strings.EqualFold(etag, hex.EncodeToString(want))
}

// unavailable answers a copy that cannot be served as the copy recorded it.
func (s *Server) unavailable(w http.ResponseWriter, p, why string) {
	s.note(fmt.Sprintf("%s: not served: %s", p, why))
	w.Header().Set("Retry-After", "60")
	http.Error(w, "this copy does not match what the copy recorded ("+why+"): it is damaged, or a run is changing it; it is not served", http.StatusServiceUnavailable)
}

// checkDigest picks the digest a copy's bytes are checked against: MD5
// when recorded (the cheapest), else the first rsx computes.
func checkDigest(d state.Digests) (alg string, want []byte, ok bool) {
	pick := func(a, h string) bool {
		b, err := hex.DecodeString(h)
		if err != nil || model.NewHash(a) == nil {
			return false
		}
		alg, want, ok = a, b, true
		return true
	}
	if h, found := d.Get("md5"); found && pick("md5", h) {
		return
	}
	d.Each(func(a, h string) {
		if !ok {
			pick(a, h)
		}
	})
	return
}

// mediaType is the Content-Type of a copy: the type its Source declared,
// else one its name suggests.
func mediaType(declared, p string) string {
	if declared != "" {
		if _, _, err := mime.ParseMediaType(declared); err == nil && !strings.ContainsAny(declared, "\r\n") {
			return declared
		}
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// checkWhole hashes what r holds and compares it with the digest and length.
func checkWhole(r io.Reader, alg string, want []byte, length int64) error {
	h := model.NewHash(alg)
	n, err := io.Copy(h, r)
	switch {
	case err != nil:
		return err
	case n != length:
		return fmt.Errorf("%d bytes, the copy recorded %d", n, length)
	case !bytes.Equal(h.Sum(nil), want):
		return fmt.Errorf("its %s is %x, the copy recorded %x", alg, h.Sum(nil), want)
	}
	return nil
}

// verifyingReader hands a file's bytes on as it reads and hashes them, all
// but the last until the whole file is read and matches its digest and
// length; then the last, or an error (failed). Its Seek answers only what
// http.ServeContent asks of a whole file (its size, its start).
type verifyingReader struct {
	r      io.Reader
	size   int64
	h      hash.Hash
	want   []byte
	pos    int64
	failed error
}

func (v *verifyingReader) Seek(offset int64, whence int) (int64, error) {
	switch {
	case offset == 0 && whence == io.SeekEnd:
		return v.size, nil
	case offset == 0 && whence == io.SeekStart && v.pos == 0:
		return 0, nil
	}
	return 0, errors.New("a copy checked as it is sent is read from its start to its end")
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.failed != nil {
		return 0, v.failed
	}
	if v.pos >= v.size && v.size > 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if rest := v.size - 1 - v.pos; rest > 0 {
		n, err := v.r.Read(p[:min(int64(len(p)), rest)])
		v.h.Write(p[:n])
		v.pos += int64(n)
		if errors.Is(err, io.EOF) {
			v.failed = fmt.Errorf("%d bytes, the copy recorded %d", v.pos, v.size)
			return n, v.failed
		}
		return n, err
	}
	// The last byte (none of an empty file), then nothing: checked first.
	var last [1]byte
	n := 0
	if v.size > 0 {
		var err error
		if n, err = io.ReadFull(v.r, last[:]); err != nil {
			v.failed = fmt.Errorf("%d bytes, the copy recorded %d", v.pos, v.size)
			return 0, v.failed
		}
		v.h.Write(last[:])
	}
	var more [1]byte
	if m, _ := io.ReadFull(v.r, more[:]); m > 0 {
		v.failed = fmt.Errorf("more bytes than the %d the copy recorded", v.size)
		return 0, v.failed
	}
	if got := v.h.Sum(nil); !bytes.Equal(got, v.want) {
		v.failed = fmt.Errorf("its digest is %x, the copy recorded %x", got, v.want)
		return 0, v.failed
	}
	v.pos = v.size
	copy(p, last[:n])
	return n, io.EOF
}

// verifiedCache remembers the files whose whole bytes matched, for as long
// as they keep their size and time, so that ranges of them are served
// without hashing the file again.
type verifiedCache struct {
	mu   sync.Mutex
	seen map[string]verifiedFile
}

type verifiedFile struct {
	size int64
	mod  time.Time
	etag string
	sum  string
}

const verifiedMax = 4096

func newVerifiedCache() *verifiedCache { return &verifiedCache{seen: map[string]verifiedFile{}} }

func (c *verifiedCache) key(fi store.FileInfo, alg string, want []byte) verifiedFile {
	return verifiedFile{size: fi.Size, mod: fi.ModTime, etag: fi.ETag, sum: alg + ":" + hex.EncodeToString(want)}
}

func (c *verifiedCache) ok(p string, fi store.FileInfo, alg string, want []byte) bool {
	if fi.ModTime.IsZero() && fi.ETag == "" {
		return false // nothing tells the file changed since
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, found := c.seen[p]
	return found && v == c.key(fi, alg, want)
}

func (c *verifiedCache) add(p string, fi store.FileInfo, alg string, want []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) >= verifiedMax {
		clear(c.seen)
	}
	c.seen[p] = c.key(fi, alg, want)
}
