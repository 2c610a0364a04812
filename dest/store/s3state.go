package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/minio/minio-go/v7"
	"github.com/zeebo/xxh3"
)

// A bucket's state is replicated by its changes (docs/destination.md, "The
// state in a bucket"). Under PREFIX/.rsx/state/:
//
//	manifest.json            what the state is: a base and the segments after it
//	base-G-RAND.db.zst       the whole database file of generation G, zstd-compressed
//	seg-G-N-RAND.zst         segment N of generation G: the pages that changed
//
// After each committed batch only the pages of the database file that changed
// since the last publish are uploaded, as a segment, and then the manifest,
// which lists it (the manifest's PUT is the commit: a run killed before it
// left an object nothing refers to, removed later). When the segments of a
// generation come to weigh as much as its base, the publish writes a new
// base (a new generation) instead, and removes the objects of the old one,
// if its run's own changes are a fair share of that weight; the newest
// small segments are merged (s3compact.go). Which
// pages changed is found by comparing each page's XXH3-128 hash with the
// hashes of the state last published, kept in the cache folder.
//
// Older rsx versions kept the whole file at PREFIX/.rsx/state.db: it is read
// as before when there is no manifest, and each new base replaces it with
// legacyStub, which older versions refuse to open.

const (
	stateReplDir      = ReservedDir + "/state"
	stateManifestName = "manifest.json"
	stateFormat       = 1
	segmentMagic      = "RSXPAGES"
	pageHashesMagic   = "RSXPHASH"
)

var (
	// compactFloor: below this many bytes of segments a generation is not
	// compacted (a small state is cheaper to keep as a few segments).
	compactFloor int64 = 8 << 20
	// maxSegments bounds the manifest (and the objects a restore reads).
	maxSegments = 256
)

// stateManifest is PREFIX/.rsx/state/manifest.json.
type stateManifest struct {
	Format     int           `json:"format"`     // 1
	Generation int64         `json:"generation"` // a new base starts a new one
	PageSize   int           `json:"page_size"`  // bytes of a database page
	Pages      int64         `json:"pages"`      // pages of the database file once every segment is applied
	Digest     string        `json:"digest"`     // "xxh3-128-pages:" and the SHA-256 of the pages' XXH3-128 hashes (16 bytes each, big-endian, in page order)
	Written    string        `json:"written"`    // when this manifest was written
	Base       stateObject   `json:"base"`
	Segments   []stateObject `json:"segments"`
}

// stateObject is one object of a manifest.
type stateObject struct {
	Key    string `json:"key"`    // relative to PREFIX/.rsx/state/
	Size   int64  `json:"size"`   // bytes stored
	SHA256 string `json:"sha256"` // of the bytes stored (compressed)
	Pages  int64  `json:"pages"`  // pages in it (a segment) or of the database (a base)
}

func (m *stateManifest) segmentBytes() int64 {
	var n int64
	for _, o := range m.Segments {
		n += o.Size
	}
	return n
}

// pageHashes is the XXH3-128 hash of each page of a database file.
type pageHashes struct {
	pageSize int
	sums     [][16]byte
}

func (h *pageHashes) digest() string {
	d := sha256.New()
	for _, s := range h.sums {
		d.Write(s[:])
	}
	return "xxh3-128-pages:" + hex.EncodeToString(d.Sum(nil))
}

func pageSum(p []byte) [16]byte { return xxh3.Hash128(p).Bytes() }

// dbPageSize reads the page size in a SQLite database header.
func dbPageSize(hdr []byte) (int, error) {
	if len(hdr) < 100 || string(hdr[:16]) != "SQLite format 3\x00" {
		return 0, errors.New("not a SQLite database file")
	}
	ps := int(binary.BigEndian.Uint16(hdr[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps&(ps-1) != 0 {
		return 0, fmt.Errorf("page size %d in its header is not valid", ps)
	}
	return ps, nil
}

// scanPages reads the database file at p page by page, hashing each page, and
// calls fn with each page (pgno from 1) whose hash differs from old's (every
// page when old is nil), or that extra holds. The page bytes are only valid
// during the call.
func scanPages(p string, old *pageHashes, extra map[int64]bool, fn func(pgno int64, page []byte) error) (*pageHashes, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	hdr, err := r.Peek(100)
	if err != nil {
		return nil, fmt.Errorf("read the database header: %w", err)
	}
	ps, err := dbPageSize(hdr)
	if err != nil {
		return nil, err
	}
	if old != nil && old.pageSize != ps {
		old = nil
	}
	h := &pageHashes{pageSize: ps}
	page := make([]byte, ps)
	for pgno := int64(1); ; pgno++ {
		if _, err := io.ReadFull(r, page); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read page %d: %w", pgno, err)
		}
		sum := pageSum(page)
		h.sums = append(h.sums, sum)
		if old == nil || pgno > int64(len(old.sums)) || old.sums[pgno-1] != sum || extra[pgno] {
			if err := fn(pgno, page); err != nil {
				return nil, err
			}
		}
	}
	return h, nil
}

// writePageHashes keeps the hashes of the state last published (or
// restored) in the cache folder, with the digest they make.
func writePageHashes(p string, h *pageHashes) error {
	var b bytes.Buffer
	b.WriteString(pageHashesMagic)
	binary.Write(&b, binary.BigEndian, uint32(h.pageSize))
	binary.Write(&b, binary.BigEndian, uint64(len(h.sums)))
	for _, s := range h.sums {
		b.Write(s[:])
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// readPageHashes reads the hashes writePageHashes kept; nil when there are
// none or they do not make the digest want.
func readPageHashes(p, want string) *pageHashes {
	b, err := os.ReadFile(p)
	if err != nil || len(b) < 20 || string(b[:8]) != pageHashesMagic {
		return nil
	}
	h := &pageHashes{pageSize: int(binary.BigEndian.Uint32(b[8:12]))}
	n := binary.BigEndian.Uint64(b[12:20])
	if uint64(len(b)-20) != n*16 {
		return nil
	}
	h.sums = make([][16]byte, n)
	for i := range h.sums {
		copy(h.sums[i][:], b[20+16*i:])
	}
	if h.digest() != want {
		return nil
	}
	return h
}

func (s *S3) stateKey(name string) string { return s.loc.Key(stateReplDir + "/" + name) }
func (s *S3) pageHashesPath() string      { return filepath.Join(s.cache, "state.pages") }

// getManifest reads the bucket's manifest: nil (and no error) when there is
// none.
func (s *S3) getManifest(ctx context.Context) (*stateManifest, string, error) {
	obj, err := s.client.GetObject(ctx, s.loc.Bucket, s.stateKey(stateManifestName), minio.GetObjectOptions{})
	if err != nil {
		if isNotFound(err) {
			return nil, "", nil
		}
		return nil, "", err
	}
	defer obj.Close()
	info, err := obj.Stat()
	if err != nil {
		if isNotFound(err) {
			return nil, "", nil
		}
		return nil, "", err
	}
	b, err := io.ReadAll(io.LimitReader(obj, 16<<20))
	if err != nil {
		return nil, "", err
	}
	var m stateManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, "", fmt.Errorf("%s: not a state manifest: %w", s.stateKey(stateManifestName), err)
	}
	if m.Format != stateFormat {
		return nil, "", fmt.Errorf("%s: state format %d is not one this rsx knows (%d): use a newer rsx", s.stateKey(stateManifestName), m.Format, stateFormat)
	}
	if m.PageSize < 512 || m.PageSize > 65536 || m.PageSize&(m.PageSize-1) != 0 || m.Base.Key == "" {
		return nil, "", fmt.Errorf("%s: incomplete state manifest (no page size or no base)", s.stateKey(stateManifestName))
	}
	return &m, info.ETag, nil
}

// checkedReader hashes what it reads and, at the end, checks the size and
// SHA-256 a manifest gave.
type checkedReader struct {
	r    io.Reader
	h    hash.Hash
	n    int64
	want stateObject
}

func (c *checkedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	if err == io.EOF {
		if c.n != c.want.Size {
			return n, fmt.Errorf("%s: %d bytes, the manifest says %d", c.want.Key, c.n, c.want.Size)
		}
		if got := hex.EncodeToString(c.h.Sum(nil)); got != c.want.SHA256 {
			return n, fmt.Errorf("%s: SHA-256 %s, the manifest says %s", c.want.Key, got, c.want.SHA256)
		}
	}
	return n, err
}

// openStateObject reads an object of the manifest, decompressed, checking
// its bytes against the manifest as they come. Read it to the end.
func (s *S3) openStateObject(ctx context.Context, o stateObject) (io.Reader, func(), error) {
	if strings.Contains(o.Key, "/") || o.Key == "" || o.Key == stateManifestName {
		return nil, nil, fmt.Errorf("state manifest names an object outside its folder: %q", o.Key)
	}
	obj, err := s.client.GetObject(ctx, s.loc.Bucket, s.stateKey(o.Key), minio.GetObjectOptions{})
	if err != nil {
		return nil, nil, err
	}
	dec, err := zstd.NewReader(&checkedReader{r: obj, h: sha256.New(), want: o}, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		obj.Close()
		return nil, nil, err
	}
	return dec, func() { dec.Close(); obj.Close() }, nil
}

// restoreState rebuilds the database file of manifest m at dst: its base,
// then each segment's pages, every object checked against its SHA-256 and the
// whole file against the manifest's digest. It returns the pages' hashes and
// the page numbers of each segment (segmentLists).
func (s *S3) restoreState(ctx context.Context, m *stateManifest, dst string) (*pageHashes, segmentLists, error) {
	f, err := os.OpenFile(dst, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r, done, err := s.openStateObject(ctx, m.Base)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", m.Base.Key, err)
	}
	n, err := io.Copy(f, r)
	done()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", m.Base.Key, err)
	}
	if n != m.Base.Pages*int64(m.PageSize) {
		return nil, nil, fmt.Errorf("%s: %d bytes, the manifest says %d pages of %d", m.Base.Key, n, m.Base.Pages, m.PageSize)
	}
	pages := m.Base.Pages
	lists := segmentLists{}
	for _, seg := range m.Segments {
		var nums []uint32
		if pages, err = s.applySegment(ctx, f, m.PageSize, pages, seg, &nums); err != nil {
			return nil, nil, fmt.Errorf("apply %s: %w", seg.Key, err)
		}
		lists[seg.Key] = nums
	}
	if pages != m.Pages {
		return nil, nil, fmt.Errorf("the state has %d pages once restored, the manifest says %d", pages, m.Pages)
	}
	if err := f.Sync(); err != nil {
		return nil, nil, err
	}
	h, err := scanPages(dst, nil, nil, func(int64, []byte) error { return nil })
	if err != nil {
		return nil, nil, err
	}
	if int64(len(h.sums)) != m.Pages || h.pageSize != m.PageSize {
		return nil, nil, fmt.Errorf("the restored state has %d pages of %d bytes, the manifest says %d of %d", len(h.sums), h.pageSize, m.Pages, m.PageSize)
	}
	if d := h.digest(); d != m.Digest {
		return nil, nil, fmt.Errorf("the restored state's digest is %s, the manifest says %s", d, m.Digest)
	}
	return h, lists, nil
}

// applySegment writes the pages of segment o into f, a database file of
// pages pages, and returns its page count after it; nums, when not nil, is
// given the numbers of the pages it holds. f nil reads the segment without
// writing it anywhere (its page numbers only).
func (s *S3) applySegment(ctx context.Context, f *os.File, pageSize int, pages int64, o stateObject, nums *[]uint32) (int64, error) {
	r, done, err := s.openStateObject(ctx, o)
	if err != nil {
		return 0, err
	}
	defer done()
	br := bufio.NewReaderSize(r, 1<<20)
	var hdr [8 + 4 + 4 + 8 + 8]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return 0, fmt.Errorf("header: %w", err)
	}
	if string(hdr[:8]) != segmentMagic || binary.BigEndian.Uint32(hdr[8:12]) != 1 {
		return 0, errors.New("not a segment of pages")
	}
	if int(binary.BigEndian.Uint32(hdr[12:16])) != pageSize {
		return 0, fmt.Errorf("pages of %d bytes, the manifest says %d", binary.BigEndian.Uint32(hdr[12:16]), pageSize)
	}
	dbPages := int64(binary.BigEndian.Uint64(hdr[16:24]))
	count := binary.BigEndian.Uint64(hdr[24:32])
	if count != uint64(o.Pages) {
		return 0, fmt.Errorf("%d pages, the manifest says %d", count, o.Pages)
	}
	if f != nil && (dbPages < 1 || uint64(dbPages) > uint64(pages)+count) {
		// A database grows by the pages a segment brings, no more.
		return 0, fmt.Errorf("a database of %d pages after it, %d before and %d in it", dbPages, pages, count)
	}
	page := make([]byte, 4+pageSize)
	for i := uint64(0); i < count; i++ {
		if _, err := io.ReadFull(br, page); err != nil {
			return 0, fmt.Errorf("page %d of %d: %w", i+1, count, err)
		}
		pgno := int64(binary.BigEndian.Uint32(page[:4]))
		if pgno < 1 || pgno > dbPages {
			return 0, fmt.Errorf("page number %d outside the database's %d pages", pgno, dbPages)
		}
		if nums != nil {
			*nums = append(*nums, uint32(pgno))
		}
		if f == nil {
			continue
		}
		if _, err := f.WriteAt(page[4:], (pgno-1)*int64(pageSize)); err != nil {
			return 0, err
		}
	}
	// Read to the end: the checks of size and SHA-256 happen there.
	if n, err := io.Copy(io.Discard, br); err != nil {
		return 0, err
	} else if n != 0 {
		return 0, fmt.Errorf("%d bytes after its last page", n)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if f == nil {
		return dbPages, nil
	}
	return dbPages, f.Truncate(dbPages * int64(pageSize))
}

// restored is a state fetchState restored.
type restored struct {
	path  string // the database file
	h     *pageHashes
	lists segmentLists
	m     *stateManifest
	etag  string
}

// fetchState restores the bucket's state of manifest m into a new file in
// dir, retrying when a compaction (or a merge) removed its objects meanwhile
// (then the manifest is read again).
func (s *S3) fetchState(ctx context.Context, m *stateManifest, etag, dir string) (restored, error) {
	for attempt := 0; ; attempt++ {
		f, err := os.CreateTemp(dir, "rsx-state-*.db")
		if err != nil {
			return restored{}, err
		}
		f.Close()
		h, lists, err := s.restoreState(ctx, m, f.Name())
		if err == nil {
			return restored{f.Name(), h, lists, m, etag}, nil
		}
		os.Remove(f.Name())
		if attempt == 2 || ctx.Err() != nil {
			return restored{}, err
		}
		m2, etag2, merr := s.getManifest(ctx)
		if merr != nil || m2 == nil || etag2 == etag {
			return restored{}, err
		}
		m, etag = m2, etag2
	}
}

// publishPages is PublishState in the replicated format: a segment of the
// pages that changed since the state last published, or a new base.
func (s *S3) publishPages(ctx context.Context, dbPath string, side cacheSide, conditional bool) error {
	s.mu.Lock()
	prev, prevETag := s.manifest, s.manifestETag
	s.mu.Unlock()
	if side.Format == formatPages && side.ETag != "" && (prev == nil || prevETag != side.ETag) {
		m, etag, err := s.getManifest(ctx)
		if err != nil {
			return err
		}
		if m == nil || etag != side.ETag {
			return errStateChanged
		}
		prev, prevETag = m, etag
	}
	if side.Format != formatPages {
		// First publish in this format: a legacy whole-file state (or none)
		// before it, which no other run may have replaced meanwhile.
		if m, _, err := s.getManifest(ctx); err != nil {
			return err
		} else if m != nil && conditional {
			return errStateChanged
		}
		if side.ETag != "" && conditional {
			info, err := s.client.StatObject(ctx, s.loc.Bucket, s.loc.Key(StateFile), minio.StatObjectOptions{})
			if err != nil && !isNotFound(err) {
				return err
			}
			if err != nil || info.ETag != side.ETag {
				return errStateChanged
			}
		}
		prev, prevETag = nil, ""
	}
	var old *pageHashes
	if prev != nil {
		old = readPageHashes(s.pageHashesPath(), prev.Digest)
	}
	next, err := s.nextState(ctx, dbPath, prev, old)
	if err != nil {
		return err
	}
	m, obj, h, name, newBase := next.m, next.obj, next.h, next.obj.Key, next.base
	defer os.Remove(obj.path)
	if err := s.lost(); err != nil {
		return err
	}
	if _, err := s.client.FPutObject(ctx, s.loc.Bucket, s.stateKey(name), obj.path, minio.PutObjectOptions{ContentType: "application/zstd"}); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(m, "", " ")
	opts := minio.PutObjectOptions{ContentType: "application/json", DisableMultipart: true}
	if conditional {
		if prevETag != "" {
			opts.SetMatchETag(prevETag)
		} else {
			opts.SetMatchETagExcept("*")
		}
	}
	info, err := s.client.PutObject(ctx, s.loc.Bucket, s.stateKey(stateManifestName), bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		s.client.RemoveObject(ctx, s.loc.Bucket, s.stateKey(name), minio.RemoveObjectOptions{})
		if isPreconditionFailed(err) {
			return errStateChanged
		}
		return err
	}
	s.mu.Lock()
	s.manifest, s.manifestETag = m, info.ETag
	s.uploaded += obj.Size + int64(len(b))
	if newBase {
		s.ownSegments = 0
	} else {
		s.ownSegments += next.changed
	}
	s.mu.Unlock()
	if err := writePageHashes(s.pageHashesPath(), h); err != nil {
		return err
	}
	if err := s.writeSide(cacheSide{ETag: info.ETag, Format: formatPages}); err != nil {
		return err
	}
	// The page lists of the segments, for later merges (best effort: a
	// list missing is read from its segment).
	writeSegmentPages(s.segmentPagesPath(), m, next.lists)
	if newBase {
		if err := s.putLegacyStub(ctx); err != nil {
			return fmt.Errorf("replace the older format's %s: %w", s.loc.Key(StateFile), err)
		}
		s.removeUnlisted(ctx, m)
	}
	for _, o := range next.merged {
		// Best effort: what stays is removed at the next compaction.
		s.client.RemoveObject(ctx, s.loc.Bucket, s.stateKey(o.Key), minio.RemoveObjectOptions{})
	}
	return nil
}

type encodedObject struct {
	stateObject
	path string
	nums []uint32 // a segment's page numbers
}

// encodeState writes the object of a publish into a temporary file: the
// whole database file (a base) or the pages that differ from old, and those
// extra holds (a segment), zstd-compressed.
func (s *S3) encodeState(dbPath string, old *pageHashes, base bool, name string, extra map[int64]bool) (encodedObject, *pageHashes, error) {
	out := encodedObject{stateObject: stateObject{Key: name}}
	f, err := os.CreateTemp(filepath.Join(s.cache, "tmp"), "state-publish-")
	if err != nil {
		return out, nil, err
	}
	out.path = f.Name()
	fail := func(err error) (encodedObject, *pageHashes, error) {
		f.Close()
		os.Remove(out.path)
		return out, nil, fmt.Errorf("encode the state: %w", err)
	}
	sum := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, sum)}
	enc, err := zstd.NewWriter(cw, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(1<<20))
	if err != nil {
		return fail(err)
	}
	var h *pageHashes
	if base {
		h, err = scanPages(dbPath, nil, nil, func(_ int64, page []byte) error {
			_, err := enc.Write(page)
			return err
		})
		if err == nil {
			out.Pages = int64(len(h.sums))
		}
	} else {
		// The header needs the count: the pages go to a temporary file
		// first, then behind the header.
		var pages bytes.Buffer
		tmp, terr := os.CreateTemp(filepath.Join(s.cache, "tmp"), "state-pages-")
		if terr != nil {
			return fail(terr)
		}
		defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
		bw := bufio.NewWriterSize(tmp, 1<<20)
		var count int64
		h, err = scanPages(dbPath, old, extra, func(pgno int64, page []byte) error {
			if pgno > 1<<32-1 {
				return errors.New("more pages than a segment can number")
			}
			out.nums = append(out.nums, uint32(pgno))
			var n [4]byte
			binary.BigEndian.PutUint32(n[:], uint32(pgno))
			bw.Write(n[:])
			_, err := bw.Write(page)
			count++
			return err
		})
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			pages.WriteString(segmentMagic)
			binary.Write(&pages, binary.BigEndian, uint32(1))
			binary.Write(&pages, binary.BigEndian, uint32(h.pageSize))
			binary.Write(&pages, binary.BigEndian, uint64(len(h.sums)))
			binary.Write(&pages, binary.BigEndian, uint64(count))
			_, err = enc.Write(pages.Bytes())
		}
		if err == nil {
			_, err = tmp.Seek(0, io.SeekStart)
		}
		if err == nil {
			_, err = io.Copy(enc, bufio.NewReaderSize(tmp, 1<<20))
		}
		out.Pages = count
	}
	if err != nil {
		return fail(err)
	}
	if err := enc.Close(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	out.Size, out.SHA256 = cw.n, hex.EncodeToString(sum.Sum(nil))
	return out, h, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// removeUnlisted removes what the state folder holds beyond manifest m (the
// objects of older generations, of publishes killed before their manifest).
// Best effort: what stays is removed at the next compaction.
func (s *S3) removeUnlisted(ctx context.Context, m *stateManifest) {
	keep := map[string]bool{stateManifestName: true, m.Base.Key: true}
	for _, o := range m.Segments {
		keep[o.Key] = true
	}
	prefix := s.stateKey("")
	for obj := range s.client.ListObjects(ctx, s.loc.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return
		}
		if name := strings.TrimPrefix(obj.Key, prefix); !keep[name] && path.Base(name) == name {
			s.client.RemoveObject(ctx, s.loc.Bucket, obj.Key, minio.RemoveObjectOptions{})
		}
	}
}

// legacyStub replaces PREFIX/.rsx/state.db, the whole-file state of older
// rsx versions: not a SQLite file, so that an older rsx stops at it ("file is
// not a database") instead of taking the bucket for one with no state.
const legacyStub = "rsx: the state of this destination is in .rsx/state/ (manifest.json and the objects it lists),\n" +
	"replicated by its changes; this rsx is too old to read it. This file is not a SQLite database,\n" +
	"so that an older rsx stops here instead of taking the copy for one without a state.\n"

// putLegacyStub writes legacyStub over PREFIX/.rsx/state.db.
func (s *S3) putLegacyStub(ctx context.Context) error {
	_, err := s.client.PutObject(ctx, s.loc.Bucket, s.loc.Key(StateFile), strings.NewReader(legacyStub), int64(len(legacyStub)),
		minio.PutObjectOptions{ContentType: "text/plain; charset=utf-8", DisableMultipart: true})
	if err == nil {
		s.mu.Lock()
		s.uploaded += int64(len(legacyStub))
		s.mu.Unlock()
	}
	return err
}

// StateUploaded is how many bytes of state this Store has uploaded (its
// segments, bases and manifests, or whole files of the older format).
func (s *S3) StateUploaded() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uploaded
}

var errStateChanged = errors.New("the bucket's state was changed by another run since this one fetched it; not overwriting it")

const formatPages = "pages"
