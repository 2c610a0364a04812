package model

// Value helpers of the checker: URIs, paths, media types, message quoting, and
// the duplicate set.

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// chkSet remembers 64-bit hashes of values (URIs, paths) with the entry that
// first had each, compactly (12 bytes a slot: validating keeps little else),
// up to chkMaxTracked values, after which it stops remembering. Two values are
// taken for duplicates when all 64 bits of their seeded hashes agree: for a
// million distinct values that happens in about one run in 40 million. (Slots
// of 8 bytes, 40 bits of hash beside a 24-bit entry number, made it about one
// run in two at a million values, and one in a thousand at 50,000: a false
// "also listed as entry N" on a document that has no duplicate.)
//
// The slots are segments of 512 (open addressing, linear probing) found
// through a directory by the hash's top bits (extendible hashing): a full
// segment splits in two, the new one taking the values of the next bit, so
// the set grows a segment at a time and leaves nothing behind. (One array
// doubled and rehashed left the old arrays as garbage: 1 MiB allocated for a
// set of 0.5 MiB at 50,000 URIs, all of it resident in a run too short for
// the collector to start.)
type chkSet struct {
	dir   []*chkSeg // 1<<depth entries; a segment of depth d appears 1<<(depth-d) times
	depth uint
	n     int
	sink  uint64 // what touch read, kept so that the reads are made
}

type chkSeg struct {
	depth uint // the top bits all its values share
	n     int
	slots [chkSegSlots]uint64 // the hashes (with the lowest bit set: 0 is empty)
	idx   [chkSegSlots]uint32 // the entry that had each
}

const (
	chkSegSlots = 512                 // 4 KiB of hashes and 2 KiB of entry numbers
	chkSegFull  = chkSegSlots * 7 / 8 // a segment splits rather than fill further
	chkMaxDepth = 64 - 10             // the directory's bits stay clear of those that place a value in its segment
)

func newChkSet() *chkSet { return &chkSet{dir: []*chkSeg{new(chkSeg)}} }

// chkHome is the slot where a probe for tag starts: bits 1–9, which the
// directory never uses.
func chkHome(tag uint64) int { return int(tag>>1) & (chkSegSlots - 1) }

// add records h for entry idx; when h was there already it returns the entry that
// had it and true.
func (s *chkSet) add(h uint64, idx int) (int, bool) {
	if idx < 0 || idx > math.MaxUint32 {
		return 0, false
	}
	tag := h | 1 // never 0
	for {
		seg := s.dir[tag>>(64-s.depth)] // depth 0: a shift by 64 is 0
		p := chkHome(tag)
		for ; ; p = (p + 1) & (chkSegSlots - 1) {
			sl := seg.slots[p]
			if sl == 0 {
				break
			}
			if sl == tag {
				return int(seg.idx[p]), true
			}
		}
		if s.n >= chkMaxTracked {
			return 0, false
		}
		if seg.n < chkSegFull {
			seg.slots[p], seg.idx[p] = tag, uint32(idx)
			seg.n++
			s.n++
			return 0, false
		}
		if seg.depth >= chkMaxDepth {
			return 0, false // (values this alike do not come from a seeded hash)
		}
		s.split(seg, tag)
	}
}

// touch reads the slots where the hashes of pre will be looked for (and
// most likely placed), so that the cache misses of a block's entries overlap
// instead of coming one entry at a time: the set is far larger than the
// cache, and a probe of it is otherwise the checker's largest cost. It
// changes nothing in the set.
func (s *chkSet) touch(pre []entryPre) {
	var x uint64
	for i := range pre {
		if !pre[i].hashed {
			continue
		}
		tag := pre[i].h | 1
		seg := s.dir[tag>>(64-s.depth)]
		p := chkHome(tag)
		x += seg.slots[p] + uint64(seg.idx[p])
	}
	s.sink = x
}

// split divides seg, which holds tag's place, in two by the next bit of the
// values' top bits.
func (s *chkSet) split(seg *chkSeg, tag uint64) {
	if seg.depth == s.depth {
		dir := make([]*chkSeg, 2*len(s.dir))
		for i, g := range s.dir {
			dir[2*i], dir[2*i+1] = g, g
		}
		s.dir, s.depth = dir, s.depth+1
	}
	bit := uint64(1) << (63 - seg.depth)
	old, oldIdx := seg.slots, seg.idx
	seg.slots, seg.n = [chkSegSlots]uint64{}, 0
	seg.depth++
	hi := &chkSeg{depth: seg.depth}
	// Write hi's slots before probing them: a first read of fresh memory maps
	// the zero page, and the write after it is a copy-on-write fault that
	// flushes the TLB of every core running the process (see Decoder.eFresh).
	clear(hi.slots[:])
	for i, sl := range old {
		if sl == 0 {
			continue
		}
		dst := seg
		if sl&bit != 0 {
			dst = hi
		}
		p := chkHome(sl)
		for dst.slots[p] != 0 {
			p = (p + 1) & (chkSegSlots - 1)
		}
		dst.slots[p], dst.idx[p] = sl, oldIdx[i]
		dst.n++
	}
	// seg's directory entries are those whose top seg.depth-1 bits are tag's;
	// the upper half of them now leads to hi.
	span := uint64(1) << (s.depth - seg.depth + 1)
	lo := (tag >> (64 - s.depth)) &^ (span - 1)
	for i := lo + span/2; i < lo+span; i++ {
		s.dir[i] = hi
	}
}

func chkClip(s string) string {
	if len(s) <= chkMaxShown {
		return s
	}
	cut := chkMaxShown
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

func chkQuote(s string) string { return strconv.Quote(chkClip(s)) }

// EntryNumber is how messages for people number an entry: the first entry
// of a document is entry 1. (Problem.Entry and the JSON "entry" field stay
// 0-based positions.)
func EntryNumber(index int) string { return strconv.Itoa(index + 1) }

// ref names an entry in messages: `entry 3 (http://example.com/res2)`.
func chkRef(e *Entry, idx int) string {
	s := "entry " + EntryNumber(idx)
	if e.Loc != "" {
		return s + " (" + chkClip(e.Loc) + ")"
	}
	return s + " (line " + strconv.Itoa(e.Line) + ")"
}

func chkDatetimeReason(raw string) string {
	_, err := ParseDatetime(raw)
	var de *DatetimeError
	if errors.As(err, &de) {
		return de.Reason
	}
	if err != nil {
		return err.Error()
	}
	return "invalid value"
}

// chkLatest is the last instant a value of reduced precision may denote.
func chkLatest(d *Datetime) time.Time {
	if d.Precision == PrecisionFraction || d.Precision == PrecisionNone {
		return d.Time
	}
	return d.End().Add(-time.Nanosecond)
}

func isCheckSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

func chkIsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func chkChangefreq(s string) bool {
	switch s {
	case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
		return true
	}
	return false
}

// chkMediaType accepts type/subtype with optional parameters.
func chkMediaType(s string) bool {
	slash := strings.IndexByte(s, '/')
	if slash <= 0 || slash == len(s)-1 {
		return false
	}
	end := len(s)
	if semi := strings.IndexByte(s, ';'); semi >= 0 {
		end = semi
	}
	if slash >= end-1 {
		return false
	}
	for i := 0; i < end; i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// chkTopTypes are the top-level types of the IANA Media Types registry (as
// of 2025), for messages.
const chkTopTypes = "application, audio, example, font, haptics, image, message, model, multipart, text, video"

// chkRegisteredTopType tells whether the top-level type of s, a media type
// of the type/subtype form, is one the IANA registry has (case-insensitive,
// RFC 6838 section 4.2).
func chkRegisteredTopType(s string) bool {
	top := s[:strings.IndexByte(s, '/')]
	for _, t := range [...]string{"application", "audio", "example", "font", "haptics", "image", "message", "model", "multipart", "text", "video"} {
		if strings.EqualFold(top, t) {
			return true
		}
	}
	return false
}

type uriProblem uint8

// uriBadASCII marks the ASCII bytes a URI cannot hold: controls, space, '"',
// '<', '>', '\\', '^', '`', '{', '|', '}' and DEL.
const uriBadASCII = "" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00" +
	"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x01\x00\x01"

// uriByteClass classes all 256 byte values for uriScan: 1 for a byte
// uriBadASCII marks, 2 for '%', 0 for the rest (bytes of UTF-8 sequences are
// not bad). Indexed by a byte, it needs no bounds check.
const uriByteClass = "" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x00\x01\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00" +
	"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x01\x00\x01" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// uriScan returns the classes (uriByteClass) of the bytes of s or'ed
// together, eight bytes a step: the eight lookups do not wait on each other
// (every loc goes through here; it was a loop with a branch a byte). One pass
// tells whether s holds a byte a URI cannot hold, and whether it holds a '%'
// (for uriStrayPercent, which most values then need not search).
func uriScan(s string) byte {
	var c byte
	i := 0
	for ; i+8 <= len(s); i += 8 {
		c |= uriByteClass[s[i]] | uriByteClass[s[i+1]] | uriByteClass[s[i+2]] | uriByteClass[s[i+3]] |
			uriByteClass[s[i+4]] | uriByteClass[s[i+5]] | uriByteClass[s[i+6]] | uriByteClass[s[i+7]]
	}
	for ; i < len(s); i++ {
		c |= uriByteClass[s[i]]
	}
	return c
}

// uriHasBad reports whether s holds a byte a URI cannot hold.
func uriHasBad(s string) bool { return uriScan(s)&1 != 0 }

const (
	uriOK uriProblem = iota
	uriNotAbsolute
	uriNoHost
	uriBadChar
	uriBadPercent // a % not followed by two hex digits
)

// uriStrayPercent reports whether s has a % that does not start a
// percent-encoded octet (RFC 3986, section 2.1: "%" HEXDIG HEXDIG); a literal
// % is written %25.
func uriStrayPercent(s string) bool {
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			return false
		}
		if i+2 >= len(s) || !chkHexDigit(s[i+1]) || !chkHexDigit(s[i+2]) {
			return true
		}
		s = s[i+3:]
	}
}

func chkHexDigit(b byte) bool {
	return b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'f'
}

// chkURI judges a <loc> value: an absolute URI (IRI characters allowed), with a
// host for http and https.
func chkURI(s string) uriProblem {
	c := uriScan(s)
	if c&1 != 0 {
		return uriBadChar
	}
	if c&2 != 0 && uriStrayPercent(s) {
		return uriBadPercent
	}
	if len(s) == 0 || !(s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z') {
		return uriNotAbsolute
	}
	i := 1
	for i < len(s) {
		b := s[i]
		if b|0x20 >= 'a' && b|0x20 <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '-' || b == '.' {
			i++
			continue
		}
		break
	}
	if i >= len(s) || s[i] != ':' {
		return uriNotAbsolute
	}
	scheme := s[:i]
	if len(scheme) == 4 && scheme == "http" || len(scheme) == 5 && scheme == "https" ||
		(len(scheme) == 4 || len(scheme) == 5) && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")) {
		rest := s[i+1:]
		if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
			return uriNoHost
		}
		host := rest[2:]
		for j := 0; j < len(host); j++ {
			if b := host[j]; b == '/' || b == '?' || b == '#' {
				host = host[:j]
				break
			}
		}
		if k := strings.LastIndexByte(host, '@'); k >= 0 {
			host = host[k+1:]
		}
		if host == "" || host[0] == ':' {
			return uriNoHost
		}
	}
	return uriOK
}

// chkRegisteredRel reports whether rel is in the IANA Link Relation Type Registry
// (names compare case-insensitively), or is "resourcesync" (discovery, section 6).
func chkRegisteredRel(rel string) bool {
	if chkRelName(rel) {
		return true
	}
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c >= 'A' && c <= 'Z' {
			return chkRelName(strings.ToLower(rel))
		}
	}
	return false
}

func chkRelName(rel string) bool {
	switch rel {
	case "about", "acl", "alternate", "amphtml", "api-catalog", "appendix", "apple-touch-icon",
		"apple-touch-startup-image", "archives", "author", "blocked-by", "bookmark", "c2pa-manifest",
		"canonical", "chapter", "cite-as", "collection", "compression-dictionary", "contents",
		"convertedfrom", "copyright", "create-form", "current", "deprecation", "describedby",
		"describes", "disclosure", "dns-prefetch", "duplicate", "edit", "edit-form", "edit-media",
		"enclosure", "external", "first", "geofeed", "glossary", "help", "hosts", "hub",
		"ice-server", "icon", "index", "intervalafter", "intervalbefore", "intervalcontains",
		"intervaldisjoint", "intervalduring", "intervalequals", "intervalfinishedby",
		"intervalfinishes", "intervalin", "intervalmeets", "intervalmetby", "intervaloverlappedby",
		"intervaloverlaps", "intervalstartedby", "intervalstarts", "item", "last", "latest-version",
		"license", "linkset", "lrdd", "manifest", "mask-icon", "me", "media-feed", "memento",
		"micropub", "modulepreload", "monitor", "monitor-group", "next", "next-archive", "nofollow",
		"noopener", "noreferrer", "opener", "openid2.local_id", "openid2.provider", "original",
		"p3pv1", "payment", "pingback", "preconnect", "predecessor-version", "prefetch", "preload",
		"prerender", "prev", "prev-archive", "preview", "previous", "privacy-policy", "profile",
		"publication", "rdap-active", "rdap-bottom", "rdap-down", "rdap-top", "rdap-up", "related",
		"replies", "resourcesync", "restconf", "ruleinput", "search", "section", "self", "service",
		"service-desc", "service-doc", "service-meta", "sip-trunking-capability", "sponsored",
		"start", "status", "stylesheet", "subsection", "successor-version", "sunset", "tag",
		"terms-of-service", "timegate", "timemap", "type", "ugc", "up", "version-history", "via",
		"webmention", "working-copy", "working-copy-of":
		return true
	}
	return false
}

// chkSameMediaType compares media types without parameters, case-insensitively.
func chkSameMediaType(a, b string) bool {
	if i := strings.IndexByte(a, ';'); i >= 0 {
		a = a[:i]
	}
	if i := strings.IndexByte(b, ';'); i >= 0 {
		b = b[:i]
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
