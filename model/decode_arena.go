package model

import "unsafe"

// arena is the storage entries' strings and hash lists are carved out of:
// chunks of a few tens of KiB, so that most entries cost no allocation of
// their own. A chunk's bytes are never written again while a string handed
// out refers to them, which is what makes the unsafe.String conversion sound:
// without reuse a chunk is dropped when full (and lives as long as any of its
// strings); with reuse (DecoderOptions.Reuse) rewind makes every chunk free
// again, which the Decoder does only when the entries whose strings they hold
// are no longer valid.
type arena struct {
	reuse bool
	b     []byte      // the byte chunk being filled
	h     []hashBlock // the hash chunk being filled, up to hn
	hn    int

	// With reuse: every chunk made, and the next one to hand out.
	chunks  [][]byte
	hchunks [][]hashBlock
	ci, hi  int
}

const (
	arenaChunk      = 32 << 10 // bytes per chunk
	arenaMaxString  = arenaChunk / 8
	arenaHashChunk  = 128 // hash blocks per chunk without reuse
	arenaHashReused = 16  // with reuse, where few are needed between two rewinds
)

// str returns b as a string stored in the arena.
func (a *arena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaMaxString {
		return string(b)
	}
	if cap(a.b)-len(a.b) < len(b) {
		a.b = a.nextChunk()
	}
	off := len(a.b)
	a.b = append(a.b, b...)
	return unsafe.String(&a.b[off], len(b))
}

func (a *arena) nextChunk() []byte {
	if !a.reuse {
		return make([]byte, 0, arenaChunk)
	}
	if a.ci == len(a.chunks) {
		a.chunks = append(a.chunks, make([]byte, 0, arenaChunk))
	}
	c := a.chunks[a.ci][:0]
	a.ci++
	return c
}

// block returns storage for one short hash list; take marks it used.
func (a *arena) block() *hashBlock {
	if a.hn == len(a.h) {
		a.hn = 0
		switch {
		case !a.reuse:
			a.h = make([]hashBlock, arenaHashChunk)
		default:
			if a.hi == len(a.hchunks) {
				a.hchunks = append(a.hchunks, make([]hashBlock, arenaHashReused))
			}
			a.h = a.hchunks[a.hi]
			a.hi++
		}
	}
	return &a.h[a.hn]
}

func (a *arena) take() { a.hn++ }

// rewind makes every chunk free again (with reuse; without, it does nothing).
func (a *arena) rewind() {
	if !a.reuse {
		return
	}
	a.b, a.h = nil, nil
	a.hn, a.ci, a.hi = 0, 0, 0
}
