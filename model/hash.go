package model

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"strconv"
	"strings"
)

// The hash attribute (section 7) is a whitespace-delimited list of alg:digest
// tokens whose digests the specification requires to be hex. The 2012 alpha draft
// carried base64 MD5 digests (as HTTP Content-MD5 does) and resync-client-ruby still
// writes them ("md5:Yx8m6CqWBJjKT5VBggoWeQ=="), so a base64 digest of exactly the
// algorithm's length is decoded too and marked HashBase64 for the checker to flag.
// Base64 is accepted in both alphabets, padded or not, but only in canonical form
// (unused trailing bits zero), as every encoder writes it; a digest made entirely of
// hex digits is always read as hex.

// hashAlgorithm describes a supported algorithm and its accepted spellings.
type hashAlgorithm struct {
	name  string // normalised token
	alias string // other accepted spelling (checker may warn)
	size  int    // digest bytes
	new   func() hash.Hash
}

// hashAlgorithms is an immutable lookup table.
var hashAlgorithms = [...]hashAlgorithm{
	{"md5", "", md5.Size, md5.New},
	{"sha-1", "sha1", sha1.Size, sha1.New},
	{"sha-256", "sha256", sha256.Size, sha256.New},
	{"sha-384", "sha384", sha512.Size384, sha512.New384},
	{"sha-512", "sha512", sha512.Size, sha512.New},
}

func lookupHashAlg(alg string) *hashAlgorithm {
	switch alg { // the spellings of the specification, without folding
	case "md5":
		return &hashAlgorithms[0]
	case "sha-1":
		return &hashAlgorithms[1]
	case "sha-256":
		return &hashAlgorithms[2]
	case "sha-384":
		return &hashAlgorithms[3]
	case "sha-512":
		return &hashAlgorithms[4]
	}
	if len(alg) < 3 || len(alg) > 7 {
		return nil
	}
	for i := range hashAlgorithms {
		a := &hashAlgorithms[i]
		if strings.EqualFold(alg, a.name) || (a.alias != "" && strings.EqualFold(alg, a.alias)) {
			return a
		}
	}
	return nil
}

// NormalizeHashAlg returns the normalised token for an algorithm as written:
// "SHA256" and "sha-256" give "sha-256"; unknown algorithms are lower-cased.
func NormalizeHashAlg(alg string) string {
	if a := lookupHashAlg(alg); a != nil {
		return a.name
	}
	for i := 0; i < len(alg); i++ {
		if c := alg[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(alg)
		}
	}
	return alg
}

// SupportedHash reports whether digests of alg (in any accepted spelling) can be
// computed: md5, sha-1, sha-256, sha-384 and sha-512.
func SupportedHash(alg string) bool { return lookupHashAlg(alg) != nil }

// HashSize returns the digest length in bytes of a supported algorithm, 0 otherwise.
func HashSize(alg string) int {
	if a := lookupHashAlg(alg); a != nil {
		return a.size
	}
	return 0
}

// HashError is what is wrong with one token of a hash attribute.
type HashError struct {
	Token  string // the token as written
	Reason string
}

func (e *HashError) Error() string {
	if e.Token == "" {
		return "hash: " + e.Reason
	}
	return "hash " + strconv.Quote(e.Token) + ": " + e.Reason
}

// HashListError gathers the problems of a hash attribute.
type HashListError struct {
	Problems []*HashError
}

func (e *HashListError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap returns the individual problems (for errors.As).
func (e *HashListError) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// ParseHashList parses the value of a hash attribute. Tokens are separated by any
// ASCII whitespace, newlines included. Every token of the form alg:digest is
// returned, with HashInvalid when its digest cannot be decoded; tokens without an
// algorithm are left out. The error, a *HashListError, lists every problem: tokens
// without an algorithm, digests that are not hex or base64 of the algorithm's
// length, hex digests of the wrong length, repeated algorithms, an empty list.
// A base64 digest is not an error here (its Encoding says so). Unknown algorithms
// are not errors either as long as their digest is hex.
func ParseHashList(s string) (HashList, error) {
	// First pass: find the tokens and an upper bound of their decoded size.
	type span struct {
		start, end int
		alg        *hashAlgorithm
	}
	var spans [4]span
	var more []span
	n, total := 0, 0
	for i := 0; i < len(s); {
		for i < len(s) && isASCIISpace(s[i]) {
			i++
		}
		start := i
		for i < len(s) && !isASCIISpace(s[i]) {
			i++
		}
		if start == i {
			break
		}
		sp := span{start: start, end: i}
		tok := s[start:i]
		if colon := strings.IndexByte(tok, ':'); colon > 0 {
			sp.alg = lookupHashAlg(tok[:colon])
		}
		if sp.alg != nil {
			total += sp.alg.size // a digest of another size is refused
		} else {
			total += len(tok) / 2 // hex of an unknown algorithm
		}
		if n < len(spans) {
			spans[n] = sp
		} else {
			if more == nil {
				more = append(more, spans[:]...)
			}
			more = append(more, sp)
		}
		n++
	}
	if n == 0 {
		return nil, &HashListError{Problems: []*HashError{{Reason: "no hash values"}}}
	}
	all := spans[:min(n, len(spans))]
	if more != nil {
		all = more
	}

	// One allocation holds the list and the digests in the common case.
	var list HashList
	var buf []byte
	if n <= 2 && total <= 64 {
		blk := new(hashListBlock)
		list, buf = blk.h[:0:n], blk.d[:0:total]
	} else {
		list, buf = make(HashList, 0, n), make([]byte, 0, total)
	}
	var problems []*HashError
	problem := func(tok, reason string) {
		problems = append(problems, &HashError{Token: tok, Reason: reason})
	}

	for _, sp := range all {
		tok := s[sp.start:sp.end]
		colon := strings.IndexByte(tok, ':')
		if colon <= 0 {
			problem(tok, "no algorithm (expected alg:digest, e.g. md5:…)")
			continue
		}
		a := sp.alg
		h := Hash{AlgRaw: tok[:colon], Value: tok[colon+1:], Encoding: HashInvalid}
		if a != nil {
			h.Alg = a.name
		} else {
			h.Alg = NormalizeHashAlg(h.AlgRaw)
		}
		for k := range list {
			if list[k].Alg == h.Alg {
				problem(tok, "algorithm "+h.Alg+" given more than once")
				break
			}
		}

		v := h.Value
		at := len(buf)
		switch {
		case v == "":
			problem(tok, "empty digest")
		case isHex(v):
			if len(v)%2 != 0 || (a != nil && len(v) != 2*a.size) {
				if a != nil {
					problem(tok, h.Alg+" digest has "+strconv.Itoa(len(v))+" hex digits, expected "+strconv.Itoa(2*a.size))
				} else {
					problem(tok, "hex digest has an odd number of digits")
				}
				break
			}
			for j := 0; j < len(v); j += 2 {
				buf = append(buf, hexValue(v[j])<<4|hexValue(v[j+1]))
			}
			h.Digest = buf[at:len(buf):len(buf)]
			h.Encoding = HashHex
		case a == nil:
			problem(tok, "digest of unknown algorithm "+strconv.Quote(h.AlgRaw)+" is not hex")
		default:
			if d, ok := decodeBase64Digest(buf[at:at:cap(buf)], v); ok && len(d) == a.size {
				buf = buf[:at+len(d)]
				h.Digest = buf[at:len(buf):len(buf)]
				h.Encoding = HashBase64
				break
			}
			problem(tok, "digest is neither hex nor base64 of a "+strconv.Itoa(a.size)+"-byte "+h.Alg+" digest")
		}
		list = append(list, h)
	}
	if problems != nil {
		return list, &HashListError{Problems: problems}
	}
	return list, nil
}

// hashListBlock is the storage of a short hash list: up to two hashes and 64
// bytes of digests (md5 and sha-256 take 48).
type hashListBlock struct {
	h [2]Hash
	d [64]byte
}

func hexValue(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// decodeBase64Digest decodes s into dst (which must have room for it), accepting
// the standard and URL-safe alphabets, padded or not, in canonical form only.
func decodeBase64Digest(dst []byte, s string) ([]byte, bool) {
	unpadded := strings.TrimRight(s, "=")
	if pad := len(s) - len(unpadded); pad > 0 && (len(s)%4 != 0 || pad > 2) {
		return nil, false
	}
	std, url := false, false
	for i := 0; i < len(unpadded); i++ {
		switch c := unpadded[i]; {
		case c == '+' || c == '/':
			std = true
		case c == '-' || c == '_':
			url = true
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			return nil, false
		}
	}
	r := len(unpadded) % 4
	if (std && url) || r == 1 || len(unpadded)/4*3+max(r-1, 0) > cap(dst) {
		return nil, false
	}
	// Canonical form: the bits of the last character past the data are zero.
	if r != 0 {
		v := base64Value(unpadded[len(unpadded)-1])
		if (r == 2 && v&0x0f != 0) || (r == 3 && v&0x03 != 0) {
			return nil, false
		}
	}
	dst = dst[:0]
	var acc uint32
	for i := 0; i < len(unpadded); i++ {
		acc = acc<<6 | uint32(base64Value(unpadded[i]))
		if i%4 == 3 {
			dst = append(dst, byte(acc>>16), byte(acc>>8), byte(acc))
			acc = 0
		}
	}
	switch r {
	case 2:
		dst = append(dst, byte(acc>>4))
	case 3:
		dst = append(dst, byte(acc>>10), byte(acc>>2))
	}
	return dst, true
}

func base64Value(c byte) byte {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A'
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26
	case c >= '0' && c <= '9':
		return c - '0' + 52
	case c == '+' || c == '-':
		return 62
	}
	return 63
}

// Get returns the first hash of algorithm alg (any accepted spelling).
func (h HashList) Get(alg string) (Hash, bool) {
	alg = NormalizeHashAlg(alg)
	for _, x := range h {
		if x.Alg == alg {
			return x, true
		}
	}
	return Hash{}, false
}

// String returns the list in canonical form: tokens separated by one space, each
// with its normalised algorithm and a lower-case hex digest. A token whose digest
// could not be decoded is written as it was.
func (h HashList) String() string {
	n := 0
	for _, x := range h {
		n += len(x.AlgRaw) + len(x.Alg) + 1 + 2*len(x.Digest) + len(x.Value) + 1
	}
	b := make([]byte, 0, n)
	return string(h.appendTo(b))
}

func (h HashList) appendTo(b []byte) []byte {
	for i, x := range h {
		if i > 0 {
			b = append(b, ' ')
		}
		b = x.appendTo(b)
	}
	return b
}

// String returns the token in canonical form ("md5:1584abdf…"), or as written
// when its digest could not be decoded.
func (h Hash) String() string { return string(h.appendTo(nil)) }

func (h Hash) appendTo(b []byte) []byte {
	if h.Digest == nil {
		alg := h.AlgRaw
		if alg == "" {
			alg = h.Alg
		}
		b = append(b, alg...)
		b = append(b, ':')
		return append(b, h.Value...)
	}
	b = append(b, h.Alg...)
	b = append(b, ':')
	return hex.AppendEncode(b, h.Digest)
}

// Hex returns the digest in lower-case hex, "" when it could not be decoded.
func (h Hash) Hex() string {
	if h.Digest == nil {
		return ""
	}
	return hex.EncodeToString(h.Digest)
}

// HashResult is the outcome of checking one declared hash against content.
type HashResult struct {
	Alg       string // normalised algorithm
	Expected  string // the digest as declared
	Actual    string // computed digest in hex; "" when the algorithm is not supported
	Match     bool
	Supported bool // the algorithm could be computed
	Base64    bool // the declared digest was base64
}

// Verifier is an io.Writer that computes, in one pass over the content, every
// supported algorithm of a hash attribute, then compares the results with the
// declared digests.
type Verifier struct {
	declared HashList
	slot     []int // per declared hash: index into hashers, -1 when unsupported
	hashers  []hash.Hash
	n        int64
	par      *verifierPar // NewParallelVerifier's goroutines, nil when none
}

// NewVerifier prepares the computation of every supported algorithm in declared
// (each algorithm once, even if declared twice).
func NewVerifier(declared HashList) *Verifier {
	v := &Verifier{declared: declared, slot: make([]int, len(declared))}
	var algs []string
	for i, h := range declared {
		v.slot[i] = -1
		alg := h.Alg
		if alg == "" {
			alg = h.AlgRaw // a hand-built Hash
		}
		a := lookupHashAlg(alg)
		if a == nil {
			continue
		}
		for j, name := range algs {
			if name == a.name {
				v.slot[i] = j
			}
		}
		if v.slot[i] < 0 {
			v.slot[i] = len(v.hashers)
			algs = append(algs, a.name)
			v.hashers = append(v.hashers, a.new())
		}
	}
	return v
}

// Write feeds content to every algorithm. It never fails.
func (v *Verifier) Write(p []byte) (int, error) {
	if v.par != nil && !v.par.closed {
		v.par.write(p)
	} else {
		for _, h := range v.hashers {
			h.Write(p)
		}
	}
	v.n += int64(len(p))
	return len(p), nil
}

// Close stops the goroutines of a Verifier made by NewParallelVerifier, once
// they have hashed everything written; Results still works after it (and
// Write, on one goroutine). It never fails.
func (v *Verifier) Close() error {
	if v.par != nil {
		v.par.close()
	}
	return nil
}

// Bytes returns the number of bytes written so far.
func (v *Verifier) Bytes() int64 { return v.n }

// Results compares the digests of the content written so far with the declared
// ones: one result per declared hash, in order.
func (v *Verifier) Results() []HashResult {
	if v.par != nil {
		v.par.sync()
	}
	sums := make([][]byte, len(v.hashers))
	for i, h := range v.hashers {
		sums[i] = h.Sum(nil)
	}
	out := make([]HashResult, len(v.declared))
	for i, h := range v.declared {
		r := HashResult{Alg: h.Alg, Expected: h.Value, Base64: h.Encoding == HashBase64}
		if s := v.slot[i]; s >= 0 {
			r.Supported = true
			r.Actual = hex.EncodeToString(sums[s])
			r.Match = h.Digest != nil && bytes.Equal(h.Digest, sums[s])
		}
		out[i] = r
	}
	return out
}

// OK reports whether every supported declared hash matched and at least one
// declared hash was supported.
func (v *Verifier) OK() bool {
	supported := false
	for _, r := range v.Results() {
		if !r.Supported {
			continue
		}
		if !r.Match {
			return false
		}
		supported = true
	}
	return supported
}

// NewHash returns a new hash of a supported algorithm (any accepted
// spelling), nil for another: for a caller that hashes many bodies with
// the same hashes, Reset between them.
func NewHash(alg string) hash.Hash {
	if a := lookupHashAlg(alg); a != nil {
		return a.new()
	}
	return nil
}

// Digest computes the digest of everything r yields with algorithm alg (any
// accepted spelling).
func Digest(alg string, r io.Reader) ([]byte, error) {
	a := lookupHashAlg(alg)
	if a == nil {
		return nil, errors.New("digest: unsupported hash algorithm " + strconv.Quote(alg))
	}
	h := a.new()
	if _, err := io.Copy(h, r); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
