package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// What a publish uploads, decided so that a run's uploads follow what the
// run changed (issue 34): the pages it changed, as a segment; a new base
// only when the segments weigh as much as the base and this Store's own
// segments are a fair share of that weight, so that the run whose writes
// made a compaction due pays for it, not the run of a few changes that
// comes after it; and, so that runs of a few changes do not pile segments
// up to the count at which the state must be compacted, the newest small
// segments merged with the new one (the pages of them all, as they are
// now), as a binary counter adds: a segment no larger than what is merged
// so far joins it, up to mergeCap bytes.

var (
	// mergeCap bounds the bytes a merge of the newest segments writes.
	mergeCap int64 = 512 << 10
)

// ownShare: a run compacts when its Store's own segments weigh at least
// 1/ownShare of the base.
const ownShare = 4

// publishNext is what a publish uploads: the manifest after it, its object
// (a base or a segment), the hashes of the state it describes, the page
// lists of the manifest's segments, and the segments a merge replaced
// (removed once the manifest no longer lists them).
type publishNext struct {
	m       *stateManifest
	obj     encodedObject
	h       *pageHashes
	base    bool
	lists   segmentLists
	merged  []stateObject
	changed int64 // bytes of the segment of the pages changed since the last publish, before a merge
}

// nextState decides and encodes what a publish of the database file at
// dbPath uploads, prev being the manifest last published and old its pages'
// hashes (nil: unknown, a base is written).
func (s *S3) nextState(ctx context.Context, dbPath string, prev *stateManifest, old *pageHashes) (publishNext, error) {
	written := time.Now().UTC().Format(time.RFC3339)
	if prev == nil || old == nil {
		return s.nextBase(dbPath, prev, written)
	}
	segs := prev.Segments
	obj, h, err := s.encodeState(dbPath, old, false, segmentName(prev.Generation, len(segs)+1), nil)
	if err != nil {
		return publishNext{}, err
	}
	changed := obj.Size // the run's own changes since the last publish
	lists := readSegmentPages(s.segmentPagesPath(), prev)
	keep := mergeFrom(segs, obj.Size)
	if keep < len(segs) {
		// The newest segments and the new pages, as one segment: every page
		// that differs from the state after segs[:keep] is in one of them.
		extra, err := s.pagesOf(ctx, prev.PageSize, segs[keep:], lists)
		if err == nil {
			var merged encodedObject
			merged, h, err = s.encodeState(dbPath, old, false, segmentName(prev.Generation, keep+1), extra)
			if err == nil {
				os.Remove(obj.path)
				obj = merged
			}
		}
		if err != nil {
			keep = len(segs) // not merged: the new segment alone
		}
	}
	var after int64
	for _, o := range segs[:keep] {
		after += o.Size
	}
	after += obj.Size
	s.mu.Lock()
	own := s.ownSegments + changed
	s.mu.Unlock()
	tooMany := keep+1 > maxSegments
	if tooMany || after >= max(prev.Base.Size, compactFloor) && own*ownShare >= prev.Base.Size {
		os.Remove(obj.path)
		return s.nextBase(dbPath, prev, written)
	}
	m := *prev
	m.Written = written
	m.Segments = append(append([]stateObject(nil), segs[:keep]...), obj.stateObject)
	m.PageSize, m.Pages, m.Digest = h.pageSize, int64(len(h.sums)), h.digest()
	next := publishNext{m: &m, obj: obj, h: h, lists: segmentLists{}, merged: segs[keep:], changed: changed}
	for _, o := range segs[:keep] {
		if l, ok := lists[o.Key]; ok {
			next.lists[o.Key] = l
		}
	}
	next.lists[obj.Key] = obj.nums
	return next, nil
}

// nextBase encodes a new base: the whole database file, a new generation.
func (s *S3) nextBase(dbPath string, prev *stateManifest, written string) (publishNext, error) {
	m := &stateManifest{Format: stateFormat, Generation: 1, Written: written}
	if prev != nil {
		m.Generation = prev.Generation + 1
	}
	obj, h, err := s.encodeState(dbPath, nil, true, fmt.Sprintf("base-%08d-%s.db.zst", m.Generation, randomName()), nil)
	if err != nil {
		return publishNext{}, err
	}
	m.PageSize, m.Pages, m.Digest = h.pageSize, int64(len(h.sums)), h.digest()
	m.Base = obj.stateObject
	return publishNext{m: m, obj: obj, h: h, base: true}, nil
}

func segmentName(generation int64, n int) string {
	return fmt.Sprintf("seg-%08d-%06d-%s.zst", generation, n, randomName())
}

// mergeFrom is where the segments that merge with a new one of x bytes
// begin (len(segs): none). Going back from the newest, a segment joins the
// merge while it is no larger than what is merged so far and the merge
// stays within mergeCap: runs of a few changes leave segments of sizes
// that halve towards the newest, a handful of them for every mergeCap bytes.
// When the manifest would list more than maxSegments, the newest merge
// further, up to twice mergeCap.
func mergeFrom(segs []stateObject, x int64) int {
	k, tail := len(segs), x
	for k > 0 && segs[k-1].Size <= tail && tail+segs[k-1].Size <= mergeCap {
		tail += segs[k-1].Size
		k--
	}
	for k > 0 && k+1 > maxSegments && tail+segs[k-1].Size <= 2*mergeCap {
		tail += segs[k-1].Size
		k--
	}
	return k
}

// pagesOf is the numbers of the pages that segs hold: from lists (kept in
// the cache folder since they were published or restored), else read from
// the segments in the bucket.
func (s *S3) pagesOf(ctx context.Context, pageSize int, segs []stateObject, lists segmentLists) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, o := range segs {
		nums, ok := lists[o.Key]
		if !ok {
			if _, err := s.applySegment(ctx, nil, pageSize, 0, o, &nums); err != nil {
				return nil, fmt.Errorf("read the pages of %s: %w", o.Key, err)
			}
		}
		for _, n := range nums {
			out[int64(n)] = true
		}
	}
	return out, nil
}

// segmentLists is the page numbers of segments, by key.
type segmentLists map[string][]uint32

const segmentPagesMagic = "RSXSEGPG"

func (s *S3) segmentPagesPath() string { return filepath.Join(s.cache, "state.segpages") }

// writeSegmentPages keeps in the cache folder the page lists of m's
// segments that a merge may read (those within twice mergeCap), with m's
// digest. Best effort: a list not kept is read from its segment.
func writeSegmentPages(p string, m *stateManifest, lists segmentLists) {
	var b bytes.Buffer
	b.WriteString(segmentPagesMagic)
	b.WriteString(m.Digest + "\n")
	for _, o := range m.Segments {
		nums, ok := lists[o.Key]
		if !ok || o.Size > 2*mergeCap {
			continue
		}
		binary.Write(&b, binary.BigEndian, uint16(len(o.Key)))
		b.WriteString(o.Key)
		binary.Write(&b, binary.BigEndian, uint32(len(nums)))
		binary.Write(&b, binary.BigEndian, nums)
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, b.Bytes(), 0o644) != nil || os.Rename(tmp, p) != nil {
		os.Remove(tmp)
		os.Remove(p)
	}
}

// readSegmentPages reads what writeSegmentPages kept, when it describes m.
func readSegmentPages(p string, m *stateManifest) segmentLists {
	out := segmentLists{}
	b, err := os.ReadFile(p)
	head := segmentPagesMagic + m.Digest + "\n"
	if err != nil || !bytes.HasPrefix(b, []byte(head)) {
		return out
	}
	b = b[len(head):]
	for len(b) >= 2 {
		kl := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+kl+4 {
			return segmentLists{}
		}
		key := string(b[2 : 2+kl])
		n := int(binary.BigEndian.Uint32(b[2+kl:]))
		b = b[2+kl+4:]
		if len(b) < 4*n {
			return segmentLists{}
		}
		nums := make([]uint32, n)
		for i := range nums {
			nums[i] = binary.BigEndian.Uint32(b[4*i:])
		}
		out[key] = nums
		b = b[4*n:]
	}
	return out
}
