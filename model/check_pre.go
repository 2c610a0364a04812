package model

import "hash/maphash"

// What block decoders work out for the checker. The goroutine that checks
// the entries in order (Validate's, which also reads the input and hands out
// the blocks) is the one the others wait for once decoding is fast; the
// checks of an entry's <loc> that depend on nothing but the loc — its syntax
// (chkURI) and the hash the duplicate set keeps — are pure functions of it,
// so the block decoders, on the other cores, compute them beside each entry
// and Checker.checkEntry takes them from there. The results are those the
// checker would compute: the same functions, the same seed.

// entryPre is the precomputed part of the checks of one entry's loc.
type entryPre struct {
	ok     bool       // the entry has a non-empty loc, and bad is chkURI of it
	hashed bool       // h is maphash.String(seed, loc) with the checker's seed
	bad    uriProblem // chkURI(loc)
	h      uint64
}

// preCheck asks block decoders for entryPre values.
type preCheck struct {
	seed maphash.Seed
	hash bool // the checker keeps a duplicate set of locs
}

// precheck makes the block decoders of d's parallel path compute, beside the
// entries they decode, what c.checkEntry takes from entryPre. Call it after
// c.Begin (which makes c's seed) and before the entries are read.
func (d *Decoder) precheck(c *Checker) {
	d.pre = &preCheck{seed: c.seed, hash: c.locs != nil}
}

// fill sets p for entry e.
func (pc *preCheck) fill(p *entryPre, e *Entry) {
	if !e.HasLoc || e.LocCount == 0 || e.Loc == "" {
		*p = entryPre{}
		return
	}
	*p = entryPre{ok: true, bad: chkURI(e.Loc)}
	if pc.hash {
		p.h, p.hashed = maphash.String(pc.seed, e.Loc), true
	}
}

// lastPre returns the entryPre of the entry the last call to Next (or
// nextShared) returned, or nil when there is none (the sequential path).
func (d *Decoder) lastPre() *entryPre {
	if d.par != nil && d.par.active {
		return d.par.lastPre
	}
	return nil
}

// blockPre returns, once, the entryPre values of a block whose first entry
// the last call to Next returned: the checker touches the duplicate set's
// slots of them all before it checks them one by one (chkSet.touch).
func (d *Decoder) blockPre() []entryPre {
	if d.par == nil || !d.par.active || d.par.newBlock == nil {
		return nil
	}
	b := d.par.newBlock
	d.par.newBlock = nil
	return b
}
