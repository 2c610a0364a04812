package ui

import (
	"rsx/crawl"
	"rsx/ui/nav"
)

// place is one stop in the explorer's history: a document and where the
// user was in it, or a page that is a place of its own (the fleet page),
// shown over the document that was open when it opened.
type place struct {
	url      string
	combined bool    // all parts of an index as one list
	crumbs   []Crumb // ancestors, when known
	selected int     // entry under the cursor, -1 for none
	// page is the page of a place that is a page (nav.Place), kept as it
	// was left; url and the rest are then the document under it ("" for
	// none).
	page nav.Place
}

// key identifies the place in the history: its page's, or its document's
// in the document cache.
func (p place) key() string {
	if p.page != nil {
		return "page " + p.page.PlaceKey()
	}
	return p.docKey()
}

// docKey identifies the document of a place (the one under its page) in
// the document cache.
func (p place) docKey() string { return docKey(p.url, p.combined) }

// under is the place of the document a page place is shown over.
func (p place) under() place {
	p.page = nil
	return p
}

func docKey(url string, combined bool) string {
	k := crawl.NormalizeURL(url)
	if combined {
		k += " (all parts)"
	}
	return k
}

// history is a browser-like list of places with a current position: back
// and forward move in it, a new visit drops the places ahead.
type history struct {
	places []place
	pos    int // index of the current place, -1 when empty
}

const maxHistory = 200

func newHistory() history { return history{pos: -1} }

// visit records a new current place.
func (h *history) visit(p place) {
	if h.pos >= 0 && h.pos < len(h.places) && h.places[h.pos].key() == p.key() {
		h.places[h.pos] = p
		return
	}
	h.places = append(h.places[:h.pos+1], p)
	if len(h.places) > maxHistory {
		h.places = h.places[len(h.places)-maxHistory:]
	}
	h.pos = len(h.places) - 1
}

// current returns the current place.
func (h *history) current() (place, bool) {
	if h.pos < 0 || h.pos >= len(h.places) {
		return place{}, false
	}
	return h.places[h.pos], true
}

// remember updates the selection of the current place.
func (h *history) remember(selected int) {
	if h.pos >= 0 && h.pos < len(h.places) {
		h.places[h.pos].selected = selected
	}
}

// setCrumbs records the ancestors of the current place once found.
func (h *history) setCrumbs(key string, crumbs []Crumb) {
	for i := range h.places {
		if h.places[i].docKey() == key {
			h.places[i].crumbs = crumbs
		}
	}
}

func (h *history) canBack() bool    { return h.pos > 0 }
func (h *history) canForward() bool { return h.pos >= 0 && h.pos < len(h.places)-1 }

// back moves to the previous place.
func (h *history) back() (place, bool) {
	if !h.canBack() {
		return place{}, false
	}
	h.pos--
	return h.places[h.pos], true
}

// forward moves to the next place.
func (h *history) forward() (place, bool) {
	if !h.canForward() {
		return place{}, false
	}
	h.pos++
	return h.places[h.pos], true
}

// docCache keeps loaded documents so that going back is instant. It holds
// at most maxDocs documents and maxEntries entries in all, dropping the
// least recently used.
type docCache struct {
	docs       map[string]*document
	order      []string // least recently used first
	maxDocs    int
	maxEntries int
}

func newDocCache() docCache {
	return docCache{docs: map[string]*document{}, maxDocs: 24, maxEntries: 3_000_000}
}

func (c *docCache) get(key string) *document {
	d := c.docs[key]
	if d != nil {
		c.touch(key)
	}
	return d
}

func (c *docCache) touch(key string) {
	for i, k := range c.order {
		if k == key {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, key)
}

func (c *docCache) put(key string, d *document) {
	c.docs[key] = d
	c.touch(key)
	c.evict(key)
}

func (c *docCache) remove(key string) {
	if d := c.docs[key]; d != nil {
		d.stopCrossCheck()
	}
	delete(c.docs, key)
	for i, k := range c.order {
		if k == key {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}

// evict drops old documents over the limits, never keep.
func (c *docCache) evict(keep string) {
	total := 0
	for _, d := range c.docs {
		total += d.entries.Len()
	}
	for len(c.order) > 1 && (len(c.docs) > c.maxDocs || total > c.maxEntries) {
		k := c.order[0]
		if k == keep {
			break
		}
		if d := c.docs[k]; d != nil {
			total -= d.entries.Len()
			d.cancelLoad()
			d.stopCrossCheck()
		}
		c.remove(k)
	}
}
