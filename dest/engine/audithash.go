package engine

import (
	"encoding/hex"
	"hash"
	"io"
	"strings"

	"rsx/dest/state"
	"rsx/model"
)

// copyHasher reads local copies and judges each against a length and
// digests (what the Source declares, what was recorded), as a
// claims.Verifier with no margin does, at less cost: an audit's worker keeps
// one, whose hashes, sums and read buffer serve every file it reads, where
// a Verifier per file made new hashes, parsed the digests again and wrote
// its results out as text (a third of the hashing's CPU for small files).
type copyHasher struct {
	buf  []byte
	algs []string // the algorithm of each hash, as state.Digests names it
	hs   []hash.Hash
	on   []bool   // the hash is used for the file read last
	hexs [][]byte // the hex digest of each hash used, after read
	sum  []byte
	n    int64 // bytes read of the file read last
}

func newCopyHasher(bufSize int) *copyHasher {
	return &copyHasher{buf: make([]byte, bufSize)}
}

// use readies the hashes of the algorithms of d that rsx can compute (the
// others are left unchecked, as a Verifier leaves them) for the next read.
// Call it for every list of digests the file is then judged against.
func (c *copyHasher) use(d state.Digests) {
	for s := string(d); s != ""; {
		tok, rest, _ := strings.Cut(s, " ")
		s = rest
		if alg, _, ok := strings.Cut(tok, ":"); ok {
			c.enable(alg)
		}
	}
}

func (c *copyHasher) enable(alg string) {
	for i, a := range c.algs {
		if a == alg {
			c.on[i] = true
			return
		}
	}
	h := model.NewHash(alg)
	if h == nil {
		return
	}
	c.algs, c.hs, c.on, c.hexs = append(c.algs, strings.Clone(alg)), append(c.hs, h), append(c.on, true), append(c.hexs, nil)
}

// read hashes r to its end, or until it has read more than most bytes
// (most < 0: no bound), with the hashes use readied. It returns r's error
// (not io.EOF).
func (c *copyHasher) read(r io.Reader, most int64) error {
	for i, h := range c.hs {
		if c.on[i] {
			h.Reset()
		}
	}
	c.n = 0
	var rerr error
	for {
		k, err := r.Read(c.buf)
		if k > 0 {
			p := c.buf[:k]
			for i, h := range c.hs {
				if c.on[i] {
					h.Write(p)
				}
			}
			c.n += int64(k)
		}
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
		if most >= 0 && c.n > most {
			break
		}
	}
	for i, h := range c.hs {
		if c.on[i] {
			c.sum = h.Sum(c.sum[:0])
			c.hexs[i] = hex.AppendEncode(c.hexs[i][:0], c.sum)
		}
	}
	return rerr
}

// matches reports whether the file read last has this length (when it is
// not negative) and these digests, in every algorithm use readied: what
// claims.Verifier.Verify judges nil, with no margin past the length.
func (c *copyHasher) matches(length int64, d state.Digests) bool {
	if length >= 0 && c.n != length {
		return false
	}
	for s := string(d); s != ""; {
		tok, rest, _ := strings.Cut(s, " ")
		s = rest
		alg, hx, ok := strings.Cut(tok, ":")
		if !ok {
			continue
		}
		for i, a := range c.algs {
			if a == alg && c.on[i] && !sameHex(c.hexs[i], hx) {
				return false
			}
		}
	}
	return true
}

// done forgets the hashes used, for the next file.
func (c *copyHasher) done() {
	clear(c.on)
}

// sameHex compares two hex digests, either case.
func sameHex(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i]|0x20 != b[i]|0x20 {
			return false
		}
	}
	return true
}
