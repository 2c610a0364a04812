package model

// What the Checker is given before an entry or the document ends: the links
// and extra elements a Decoder hands over (Decoder.spill) so as not to hold
// them all, which Validate passes on here.

// handOver checks links and extra elements of entry e, which is being decoded
// (its Loc is set when its <loc> came first), or of the document (e nil) whose
// header is h.
func (c *Checker) handOver(e *Entry, h *Header, links []Link, extra []Element) {
	if e == nil {
		if !c.began {
			// Before Begin (the links come before the document's first
			// entry): what is found belongs to the document Begin starts.
			c.early = true
			c.h = h
		}
		c.docLinks(links)
		for i := range extra {
			c.element(&extra[i], nil, -1)
		}
		return
	}
	if !c.active {
		return
	}
	idx := c.entries // Entry counts e when it ends
	for i := range links {
		c.link(&links[i], e, idx)
	}
	for i := range extra {
		c.element(&extra[i], e, idx)
	}
}

// docLinks checks document-level links and counts the up and describedby
// relations among them.
func (c *Checker) docLinks(links []Link) {
	for i := range links {
		l := &links[i]
		c.link(l, nil, -1)
		for tok := range RelTokens(l.Rel) {
			if RelMatches(tok, "up") {
				c.ups++
			} else if RelMatches(tok, "describedby") {
				c.describedby = true
			}
		}
	}
}

// chkEarly is what hand-overs before Begin found.
type chkEarly struct {
	doc         []Problem
	nErr, nWarn int
	ups         int
	describedby bool
}

func (c *Checker) keepEarly() *chkEarly {
	if !c.early || c.began {
		return nil
	}
	return &chkEarly{doc: c.doc, nErr: c.nErr, nWarn: c.nWarn, ups: c.ups, describedby: c.describedby}
}

func (c *Checker) restoreEarly(e *chkEarly) {
	if e == nil {
		return
	}
	c.doc, c.nErr, c.nWarn, c.ups, c.describedby = e.doc, e.nErr, e.nWarn, e.ups, e.describedby
}
