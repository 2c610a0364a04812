package model

import "strings"

// What a Decoder holds of one entry, and of the document, and when it gives
// it away.

// decMaxHeld is the number of links, or of extra elements, an entry or the
// document holds before a Decoder with a hand-over function gives them to it.
// Entries with fewer are delivered whole, as by any Decoder.
const decMaxHeld = 256

// HandOver makes d give the links and extra elements of an entry, or of the
// document, to c each time decMaxHeld (256) of them have gathered, instead of
// holding them all: c checks them as Entry and End would, and the Entry (or
// Header) d returns then holds only those that came after. One entry with a
// million links is so checked in bounded memory. Entries with fewer are
// delivered whole, as without HandOver. Call it before Header; c's Begin
// comes after Header as usual (links handed over before belong to the
// document Begin starts).
func (d *Decoder) HandOver(c *Checker) {
	d.spill = c.handOver
}

// startEntry zeroes the entry about to be filled. With reuse it keeps the
// capacity of the entry's Links and Extra, and the sequential Decoder rewinds
// its arenas: the strings of the entry Next returned before are given up.
func (d *Decoder) startEntry(line int) {
	if !d.reuse {
		*d.e = Entry{Index: d.nEntries, Line: line}
		return
	}
	var links []Link
	var extra []Element
	if !d.eFresh {
		links, extra = d.e.Links[:0], d.e.Extra[:0]
	}
	d.eFresh = false
	*d.e = Entry{Index: d.nEntries, Line: line, Links: links, Extra: extra}
	if !d.block {
		d.ent.rewind()
		d.lnk.rewind()
	}
}

// endEntry makes the entry's empty Links and Extra nil, as without reuse
// (where their capacity was kept).
func (d *Decoder) endEntry() {
	if len(d.e.Links) == 0 {
		d.e.Links = nil
	}
	if len(d.e.Extra) == 0 {
		d.e.Extra = nil
	}
}

// handOver gives the links and extra elements held by entry e (nil: by the
// document) to the hand-over function, when there is one, and empties them,
// so that one entry with a million links is never held whole. A block decoder
// of the parallel path leaves such a block to the sequential Decoder.
func (d *Decoder) handOver(e *Entry) error {
	if d.block {
		if d.bailAtHeld {
			return errBlockBail
		}
		return nil
	}
	if d.spill == nil {
		return nil
	}
	if e == nil {
		d.spill(nil, &d.hdr, d.hdr.Links, d.hdr.Extra)
		d.hdr.Links, d.hdr.Extra = d.hdr.Links[:0], d.hdr.Extra[:0]
		return nil
	}
	d.entryLoc()
	d.spill(e, &d.hdr, e.Links, e.Extra)
	e.Links, e.Extra = e.Links[:0], e.Extra[:0]
	d.lnk.rewind()
	return nil
}

// entryLoc sets the open entry's Loc once its <loc> has been read, for the
// messages about what is handed over before the entry ends.
func (d *Decoder) entryLoc() {
	if d.locA < 0 || d.e.Loc != "" {
		return
	}
	raw := d.ent.str(d.entryText[d.locA:d.locB])
	d.e.Loc = strings.TrimSpace(raw)
	if len(d.e.Loc) != len(raw) {
		d.e.LocRaw = raw
	}
}
