package spotcheck

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"rsx/claims"
	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
)

// job is a document to read.
type job struct {
	url string
	// at is the at of the index that lists the document: a Resource List
	// part without an at of its own takes it.
	at   model.Datetime
	root bool
}

// open fetches a document for reading (the response is 2xx) and returns
// its final URL.
func (r *run) open(url string) (*fetch.Response, string, error) {
	resp, err := r.a.f.Get(r.ctx, url)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, "", err // the Getter's errors name the request
	}
	if resp.Status != 0 && (resp.Status < 200 || resp.Status > 299) {
		resp.Body.Close()
		return nil, "", fmt.Errorf("fetch %s: %w", url, &fetch.StatusError{URL: url, Status: resp.Status})
	}
	base := resp.URL
	if base == "" {
		base = url
	}
	return resp, base, nil
}

// firstVisit reports whether url was not read (nor queued) yet in this run.
func (r *run) firstVisit(url string) bool {
	key := crawl.NormalizeURL(url)
	r.listsMu.Lock()
	defer r.listsMu.Unlock()
	if r.visited[key] {
		return false
	}
	r.visited[key] = true
	return true
}

func (r *run) record(l List, j job) {
	r.listsMu.Lock()
	r.lists = append(r.lists, l)
	if j.root && l.Err != nil && r.rootErr == nil {
		r.rootErr = l.Err
	}
	r.listsMu.Unlock()
	r.nLists.Add(1)
	r.progress(false)
}

// readNavigation reads url and every document below it, except the
// Resource Lists, which it keeps in r.parts: the Source Description,
// Capability Lists and indexes for their down links, and the Change Lists
// into r.changes.
func (r *run) readNavigation(url string) {
	q := newQueue[job]()
	r.firstVisit(url)
	q.push(job{url: url, root: true})
	q.run(r.ctx, r.a.o.ListConcurrency, func(j job) { r.navigate(j, q) })
}

// navigate reads one document of the navigation phase.
func (r *run) navigate(j job, q *queue[job]) {
	l := List{URL: j.url}
	resp, base, err := r.open(j.url)
	if err != nil {
		l.Err = err
		r.record(l, j)
		return
	}
	defer resp.Body.Close()
	dec := model.NewDecoder(resp.Body, r.a.o.Decoder)
	defer dec.Close()
	h, err := dec.Header()
	if err != nil {
		l.Err = fmt.Errorf("read %s: %w", j.url, err)
		r.record(l, j)
		return
	}
	l.Capability, l.Index = h.MD.Capability, h.Root == model.RootSitemapIndex
	cap := h.MD.Capability
	switch {
	case h.Root == model.RootUnknown:
		l.Err = fmt.Errorf("read %s: %w (root element <%s>)", j.url, crawl.ErrNotSitemap, h.RootLocal)
	case h.Root == model.RootSitemapIndex && cap == model.CapResourceList:
		// Its parts are read with the Resource Lists.
		l.Entries, l.Err = r.eachEntry(dec, j.url, func(e *model.Entry, loc string) {
			r.addPart(job{url: model.ResolveHref(base, loc), at: h.MD.At})
		})
	case h.Root == model.RootSitemapIndex && cap == model.CapChangeList,
		h.Root == model.RootURLSet && (cap == model.CapDescription || cap == model.CapCapabilityList):
		l.Entries, l.Err = r.eachEntry(dec, j.url, func(e *model.Entry, loc string) {
			child := model.ResolveHref(base, loc)
			switch {
			case cap == model.CapCapabilityList && e.MD.Capability == model.CapResourceList:
				r.addPart(job{url: child})
			case cap == model.CapCapabilityList && e.MD.Capability != model.CapChangeList:
				// Dumps, notification channels: not what an audit of the
				// resources reads.
			case r.firstVisit(child):
				q.push(job{url: child})
			}
		})
	case h.Root == model.RootURLSet && cap == model.CapChangeList:
		l.Entries, l.Err = r.eachEntry(dec, j.url, func(e *model.Entry, loc string) {
			r.changes.add(e, loc, j.url)
		})
	case h.Root == model.RootURLSet && cap == model.CapResourceList:
		// The root itself: read it with the Resource Lists, after the
		// Change Lists (there are none below a Resource List).
		r.listsMu.Lock()
		r.parts = append(r.parts, j)
		r.listsMu.Unlock()
		return
	default:
		what := "a " + string(cap)
		if cap == "" {
			what = "a document without a capability"
		}
		l.Err = fmt.Errorf("read %s: it is %s, not a document an audit reads (Source Description, Capability List, Resource List, Change List or an index of them)", j.url, what)
		if !j.root {
			l.Note, l.Err = "not audited: "+what, nil
		}
	}
	r.record(l, j)
}

// addPart keeps a Resource List document for the second phase.
func (r *run) addPart(j job) {
	if !r.firstVisit(j.url) {
		return
	}
	r.listsMu.Lock()
	r.parts = append(r.parts, j)
	r.listsMu.Unlock()
}

// eachEntry calls f for every entry of dec that has a loc (trimmed), and
// returns the entries read and why reading stopped early, if it did.
func (r *run) eachEntry(dec *model.Decoder, url string, f func(e *model.Entry, loc string)) (int, error) {
	var e model.Entry
	n := 0
	for {
		err := dec.Next(&e)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("read %s: %w", url, err)
		}
		n++
		if n&1023 == 0 && r.ctx.Err() != nil {
			return n, fmt.Errorf("read %s: %w", url, r.ctx.Err())
		}
		if loc := strings.TrimSpace(e.Loc); e.HasLoc && loc != "" {
			f(&e, loc)
		}
	}
}

// readResources reads the Resource Lists kept by the first phase (and the
// parts of the indexes among them), and gives each resource the include
// and exclude patterns let through to sink; wants, when set, tells from a
// resource's key whether sink takes it, so that the others cost no copy.
// With spool, each document is copied to a temporary file before it is
// read, so that no connection stays open while sink waits.
func (r *run) readResources(sink func(*item), wants func(uint64) bool, spool bool) {
	q := newQueue[job]()
	for _, j := range r.parts {
		q.push(j)
	}
	q.run(r.ctx, r.a.o.ListConcurrency, func(j job) { r.readResourceList(j, q, sink, wants, spool) })
}

// readResourceList reads one document of the second phase.
func (r *run) readResourceList(j job, q *queue[job], sink func(*item), wants func(uint64) bool, spool bool) {
	l := List{URL: j.url}
	resp, base, err := r.open(j.url)
	if err != nil {
		l.Err = err
		r.record(l, j)
		return
	}
	var body io.Reader = resp.Body
	if spool {
		f, err := r.spool(resp.Body, j.url)
		resp.Body.Close()
		if err != nil {
			l.Err = err
			r.record(l, j)
			return
		}
		defer f.Close()
		body = f
	} else {
		defer resp.Body.Close()
	}
	dec := model.NewDecoder(body, r.a.o.Decoder)
	defer dec.Close()
	h, err := dec.Header()
	if err != nil {
		l.Err = fmt.Errorf("read %s: %w", j.url, err)
		r.record(l, j)
		return
	}
	l.Capability, l.Index = h.MD.Capability, h.Root == model.RootSitemapIndex
	at := h.MD.At
	if !at.OK {
		at = j.at
	}
	switch h.Root {
	case model.RootSitemapIndex:
		if h.MD.Capability != model.CapResourceList && h.MD.Capability != "" {
			l.Note = "declares capability " + string(h.MD.Capability) + "; its parts are read as Resource Lists, as the document that lists it says they are"
		}
		l.Entries, l.Err = r.eachEntry(dec, j.url, func(e *model.Entry, loc string) {
			if u := model.ResolveHref(base, loc); r.firstVisit(u) {
				q.push(job{url: u, at: at})
			}
		})
	case model.RootURLSet:
		if h.MD.Capability != model.CapResourceList {
			l.Note = "declares capability " + string(h.MD.Capability) + "; read as a Resource List, as the document that lists it says it is"
			if h.MD.Capability == "" {
				l.Note = "declares no capability; read as a Resource List, as the document that lists it says it is"
			}
		}
		if at.OK {
			r.noteAt(at.Time)
		}
		l.Entries, l.Err = r.eachEntry(dec, j.url, func(e *model.Entry, loc string) {
			r.resource(e, loc, j.url, at, sink, wants)
		})
	default:
		l.Err = fmt.Errorf("read %s: %w (root element <%s>)", j.url, crawl.ErrNotSitemap, h.RootLocal)
	}
	r.record(l, j)
}

// noteAt keeps the earliest at of the Resource Lists read.
func (r *run) noteAt(t time.Time) {
	r.listsMu.Lock()
	if r.minAt.IsZero() || t.Before(r.minAt) {
		r.minAt = t
	}
	r.listsMu.Unlock()
}

// resource hands one Resource List entry to sink, with the claims that
// must hold for it.
func (r *run) resource(e *model.Entry, loc, list string, at model.Datetime, sink func(*item), wants func(uint64) bool) {
	if !r.a.selected(loc) {
		r.skipped.Add(1)
		return
	}
	r.listed.Add(1)
	c := r.changes.lookup(loc, at, e.Lastmod)
	key := sampleKey(r.a.o.Seed, loc)
	if wants != nil && !wants(key) {
		return
	}
	rk := rank{key: key, list: list, index: e.Index}
	if c != nil {
		it := itemOfChange(rk, c)
		it.locProblem = locProblem(loc)
		sink(it)
		return
	}
	sink(&item{rank: rk, entry: detach(e, loc), locProblem: locProblem(loc)})
}

// locProblem says why a resource's loc cannot be fetched ("" when it can):
// a Sitemap's loc is an absolute URI, and only http and https are fetched.
// A relative loc is not resolved: what it would resolve to is not what the
// Source claims, and a 404 there would name the wrong fault.
func locProblem(loc string) string {
	u, err := url.Parse(loc)
	switch {
	case err != nil:
		return "not a URI: not fetched"
	case u.Scheme == "":
		return "a relative URI (a Sitemap's loc must be absolute): not fetched"
	case !claims.Fetchable(loc):
		return "not an http or https URI: not fetched"
	}
	return ""
}

// addUnlisted hands to sink the resources that only Change Lists name
// with a change after the earliest Resource List (every one, when there
// are no Resource Lists).
func (r *run) addUnlisted(sink func(*item), wants func(uint64) bool) {
	if r.ctx.Err() != nil {
		return
	}
	for _, c := range r.changes.unlisted(r.minAt) {
		if !r.a.selected(c.entry.Loc) {
			r.skipped.Add(1)
			continue
		}
		r.listed.Add(1)
		key := sampleKey(r.a.o.Seed, c.entry.Loc)
		if wants != nil && !wants(key) {
			continue
		}
		it := itemOfChange(rank{key: key, list: c.list, index: c.index}, c)
		it.locProblem = locProblem(c.entry.Loc)
		sink(it)
	}
}

// spool copies a document to a temporary file, removed when it is closed,
// and returns the file at its start.
func (r *run) spool(body io.Reader, url string) (*spooled, error) {
	f, err := os.CreateTemp(r.a.o.TempDir, "rsx-audit-*.xml")
	if err != nil {
		return nil, fmt.Errorf("spool %s: %w", url, err)
	}
	s := &spooled{f}
	if _, err := io.Copy(f, body); err != nil {
		s.Close()
		return nil, fmt.Errorf("fetch %s: %w", url, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		s.Close()
		return nil, fmt.Errorf("spool %s: %w", url, err)
	}
	return s, nil
}

// spooled is a temporary file that is removed when closed.
type spooled struct{ *os.File }

func (s *spooled) Close() error {
	err := s.File.Close()
	return errors.Join(err, os.Remove(s.File.Name()))
}
