package republish

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"rsx/dest/state"
	"rsx/model"
)

const (
	docPrefix  = "/resourcesync/"
	xmlType    = "application/xml; charset=utf-8"
	wellKnown  = "/.well-known/resourcesync"
	stampShape = "20060102T150405.999999999Z"
)

// URLs of the documents.

func (s *Server) sourceURL(ss *servedSource, name string) string {
	return s.opts.BaseURL + docPrefix + ss.slug + "/" + name
}
func (s *Server) capURL(ss *servedSource) string   { return s.sourceURL(ss, "capabilitylist.xml") }
func (s *Server) aboutURL(ss *servedSource) string { return s.sourceURL(ss, "about.html") }
func (s *Server) rlURL(ss *servedSource) string    { return s.sourceURL(ss, "resourcelist.xml") }
func (s *Server) partURL(ss *servedSource, b int64) string {
	return s.sourceURL(ss, "resourcelist/"+strconv.FormatInt(b, 10)+".xml")
}
func (s *Server) clIndexURL(ss *servedSource) string { return s.sourceURL(ss, "changelist.xml") }
func (s *Server) archiveURL(ss *servedSource) string {
	return s.sourceURL(ss, "changelist-archive.xml")
}
func (s *Server) clURL(ss *servedSource, d changeDoc) string {
	return s.sourceURL(ss, "changelist/"+listName(d)+".xml")
}

// listName names a Change List by its bucket and its times, so that a URL
// always names the same list: a later generation whose list of that bucket
// reaches further has another URL, and the earlier one still answers with
// what it held (servedSource.list).
func listName(d changeDoc) string {
	num := "none"
	if d.num >= 0 {
		num = strconv.FormatInt(d.num, 10)
	}
	return num + "-" + d.from.UTC().Format(stampShape) + "-" + d.until.UTC().Format(stampShape)
}

// parseListName reads listName.
func parseListName(name string) (changeDoc, bool) {
	parts := strings.Split(name, "-")
	if len(parts) != 3 {
		return changeDoc{}, false
	}
	d := changeDoc{num: -1}
	if parts[0] != "none" {
		n, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != parts[0] {
			return changeDoc{}, false
		}
		d.num = n
	}
	var err1, err2 error
	d.from, err1 = time.Parse(stampShape, parts[1])
	d.until, err2 = time.Parse(stampShape, parts[2])
	return d, err1 == nil && err2 == nil
}

// copyURL is the URL a copy is served at: its path in the destination,
// each name escaped.
func (s *Server) copyURL(p string) string {
	var b strings.Builder
	b.WriteString(s.opts.BaseURL)
	for _, seg := range strings.Split(p, "/") {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(seg))
	}
	return b.String()
}

// isDocPath tells a path of the destination that the documents' URLs hold:
// a copy there is neither listed nor served.
func isDocPath(p string) bool {
	return p == "robots.txt" || p == strings.TrimPrefix(wellKnown, "/") || strings.HasPrefix(p, strings.TrimPrefix(docPrefix, "/"))
}

// route answers a request from generation g.
func (s *Server) route(w http.ResponseWriter, r *http.Request, g *generation) {
	p := r.URL.Path
	switch p {
	case "/":
		s.serveHome(w, r, g)
		return
	case "/robots.txt":
		s.serveRobots(w, r, g)
		return
	case wellKnown:
		s.serveDoc(w, r, g, "sd", false, func(bw io.Writer) error { return s.writeDescription(bw, g) })
		return
	}
	if rest, ok := strings.CutPrefix(p, docPrefix); ok {
		slug, name, _ := strings.Cut(rest, "/")
		if ss := g.bySlug(slug); ss != nil && s.serveSourceDoc(w, r, g, ss, name) {
			return
		}
		http.NotFound(w, r)
		return
	}
	s.serveCopy(w, r, g, strings.TrimPrefix(p, "/"))
}

func (g *generation) bySlug(slug string) *servedSource {
	id, err := strconv.ParseInt(slug, 10, 64)
	if err != nil || strconv.FormatInt(id, 10) != slug {
		return nil
	}
	return g.byID[id]
}

// serveSourceDoc answers the documents of one Source; false when name is
// none of them.
func (s *Server) serveSourceDoc(w http.ResponseWriter, r *http.Request, g *generation, ss *servedSource, name string) bool {
	key := "s" + ss.slug + "/" + name
	switch {
	case name == "capabilitylist.xml":
		s.serveDoc(w, r, g, key, false, func(bw io.Writer) error { return s.writeCapabilityList(bw, g, ss) })
	case name == "about.html":
		s.serveAbout(w, r, g, ss)
	case name == "resourcelist.xml":
		s.serveDoc(w, r, g, key, false, func(bw io.Writer) error { return s.writeResourceList(r.Context(), bw, g, ss) })
	case strings.HasPrefix(name, "resourcelist/") && strings.HasSuffix(name, ".xml"):
		b, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(name, "resourcelist/"), ".xml"), 10, 64)
		if err != nil || len(ss.parts) < 2 || !containsInt(ss.parts, b) {
			return false
		}
		s.serveDoc(w, r, g, key, false, func(bw io.Writer) error { return s.writePart(r.Context(), bw, g, ss, b) })
	case name == "changelist.xml":
		s.serveDoc(w, r, g, key, false, func(bw io.Writer) error { return s.writeChangeListIndex(bw, g, ss) })
	case name == "changelist-archive.xml":
		if len(ss.lists) <= g.live {
			return false
		}
		s.serveDoc(w, r, g, key, false, func(bw io.Writer) error { return s.writeArchive(bw, g, ss) })
	case strings.HasPrefix(name, "changelist/") && strings.HasSuffix(name, ".xml"):
		d, ok := parseListName(strings.TrimSuffix(strings.TrimPrefix(name, "changelist/"), ".xml"))
		if !ok {
			return false
		}
		if d, ok = ss.list(d.num, d.from, d.until); !ok {
			return false
		}
		// A Change List's URL names what it holds: it never changes.
		s.serveDoc(w, r, g, key, true, func(bw io.Writer) error { return s.writeChangeList(r.Context(), bw, g, ss, d) })
	case name == "channel/change" && s.opts.Channels:
		s.serveChannel(w, r, ss)
	default:
		return false
	}
	return true
}

func containsInt(xs []int64, x int64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// serveDoc writes a document: its ETag names it and, unless it is fixed
// (a Change List, whose URL names what it holds), the generation; a
// conditional request for the same is answered 304. A document that fails
// half-written ends the connection, so that it is not taken for whole.
func (s *Server) serveDoc(w http.ResponseWriter, r *http.Request, g *generation, key string, fixed bool, write func(io.Writer) error) {
	w.Header().Set("Content-Type", xmlType)
	if fixed {
		key = "fixed\x00" + key
	}
	s.serveDocAs(w, r, g, key, write)
}

// serveDocAs is serveDoc of a Content-Type already set; a key that begins
// "fixed" names what never changes.
func (s *Server) serveDocAs(w http.ResponseWriter, r *http.Request, g *generation, key string, write func(io.Writer) error) {
	h := fnv.New64a()
	io.WriteString(h, key)
	if !strings.HasPrefix(key, "fixed\x00") {
		io.WriteString(h, "\x00"+g.fingerprint)
	}
	etag := `"` + strconv.FormatUint(h.Sum64(), 36) + `"`
	hdr := w.Header()
	hdr.Set("ETag", etag)
	if !g.until.IsZero() {
		hdr.Set("Last-Modified", g.until.UTC().Format(http.TimeFormat))
	}
	if notModified(r, etag, g.until) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		if r.Context().Err() == nil && !errors.Is(err, errClient) {
			s.note(fmt.Sprintf("%s: %v", r.URL.Path, err))
		}
		panic(http.ErrAbortHandler)
	}
}

// errClient is an error of the client's connection.
var errClient = errors.New("the client went away")

// notModified applies If-None-Match, or else If-Modified-Since.
func notModified(r *http.Request, etag string, mod time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
		return false
	}
	if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !mod.IsZero() {
		return !mod.Truncate(time.Second).After(ims)
	}
	return false
}

func dt(t time.Time) model.Datetime { return model.Datetime{Time: t} }

func link(rel, href string) model.Link { return model.Link{Rel: rel, Href: href} }

func (s *Server) writeDescription(w io.Writer, g *generation) error {
	d, err := model.NewWriter(w, &model.Header{Root: model.RootURLSet, MD: model.Metadata{Capability: model.CapDescription},
		Links: []model.Link{link("describedby", s.opts.BaseURL+"/")}})
	if err != nil {
		return err
	}
	for _, ss := range g.sources {
		e := model.Entry{Loc: s.capURL(ss), MD: model.Metadata{Present: true, Capability: model.CapCapabilityList},
			Links: []model.Link{{Rel: "describedby", Href: s.aboutURL(ss), Type: "text/html"}}}
		if err := d.WriteEntry(&e); err != nil {
			return err
		}
	}
	return d.Close()
}

func (s *Server) writeCapabilityList(w io.Writer, g *generation, ss *servedSource) error {
	d, err := model.NewWriter(w, &model.Header{Root: model.RootURLSet, MD: model.Metadata{Capability: model.CapCapabilityList},
		Links: []model.Link{link("describedby", s.aboutURL(ss)), link("up", s.opts.BaseURL+wellKnown)}})
	if err != nil {
		return err
	}
	caps := [][2]string{{s.rlURL(ss), string(model.CapResourceList)}, {s.clIndexURL(ss), string(model.CapChangeList)}}
	if len(ss.lists) > g.live {
		caps = append(caps, [2]string{s.archiveURL(ss), string(model.CapChangeListArchive)})
	}
	if s.opts.Channels {
		caps = append(caps, [2]string{wsURL(s.sourceURL(ss, "channel/change")), string(model.CapChangeNotification)})
	}
	for _, c := range caps {
		e := model.Entry{Loc: c[0], MD: model.Metadata{Present: true, Capability: model.Capability(c[1])}}
		if err := d.WriteEntry(&e); err != nil {
			return err
		}
	}
	return d.Close()
}

// wsURL is the WebSocket URL of an http(s) one.
func wsURL(u string) string {
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "wss://" + rest
	}
	return "ws://" + strings.TrimPrefix(u, "http://")
}

// writeResourceList writes the Resource List of a Source: the list itself
// when its copies fit one part, else an index of its parts.
func (s *Server) writeResourceList(ctx context.Context, w io.Writer, g *generation, ss *servedSource) error {
	md := model.Metadata{Capability: model.CapResourceList, At: dt(g.until), Completed: dt(g.until)}
	up := link("up", s.capURL(ss))
	if len(ss.parts) >= 2 {
		d, err := model.NewWriter(w, &model.Header{Root: model.RootSitemapIndex, MD: md, Links: []model.Link{up}})
		if err != nil {
			return err
		}
		for _, b := range ss.parts {
			e := model.Entry{Loc: s.partURL(ss, b), MD: model.Metadata{Present: true, At: dt(g.until), Completed: dt(g.until)}}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}
	d, err := model.NewWriter(w, &model.Header{Root: model.RootURLSet, MD: md, Links: []model.Link{up}})
	if err != nil {
		return err
	}
	for _, b := range ss.parts {
		if err := s.writeCopies(ctx, d, g, ss, b); err != nil {
			return err
		}
	}
	return d.Close()
}

// writePart writes part b of a Resource List index.
func (s *Server) writePart(ctx context.Context, w io.Writer, g *generation, ss *servedSource, b int64) error {
	d, err := model.NewWriter(w, &model.Header{Root: model.RootURLSet,
		MD:    model.Metadata{Capability: model.CapResourceList, At: dt(g.until), Completed: dt(g.until)},
		Links: []model.Link{link("up", s.capURL(ss)), link("index", s.rlURL(ss))}})
	if err != nil {
		return err
	}
	if err := s.writeCopies(ctx, d, g, ss, b); err != nil {
		return err
	}
	return d.Close()
}

// writeCopies writes the entries of the copies of a Source whose rows are
// in bucket b.
func (s *Server) writeCopies(ctx context.Context, d *model.Writer, g *generation, ss *servedSource, b int64) error {
	var e model.Entry
	var links [1]model.Link
	return g.view.f.EachCopy(ctx, ss.row.ID, b*g.bucket, (b+1)*g.bucket, func(r *state.Resource) error {
		if !s.copyEntry(&e, links[:0], r) {
			return nil
		}
		if err := d.WriteEntry(&e); err != nil {
			return clientErr(err)
		}
		return nil
	})
}

// clientErr marks an error of writing to the client.
func clientErr(err error) error {
	var we *model.WriteError
	if errors.As(err, &we) {
		return err
	}
	return fmt.Errorf("%w: %v", errClient, err)
}

// listed tells whether a copy is listed: its bytes recorded (a length and a
// digest rsx verifies), not found damaged by an audit, at a path no
// document holds.
func listed(r *state.Resource) bool {
	return r.Length >= 0 && r.DamagedAt.IsZero() && verified(r.Digests) != "" && !isDocPath(r.Path)
}

// verified is the digests rsx computes of those recorded: what the copy
// verified its bytes with (the others are the Source's claims, named by the
// via link).
func verified(d state.Digests) string {
	var b strings.Builder
	d.Each(func(alg, hex string) {
		if model.SupportedHash(alg) {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(alg + ":" + hex)
		}
	})
	return b.String()
}

// copyEntry fills e with the Resource List entry of a copy: where it is
// served, when the copy last changed, what the copy verified, and where it
// came from (§12.7's via link, with what its original Source declared).
func (s *Server) copyEntry(e *model.Entry, links []model.Link, r *state.Resource) bool {
	if !listed(r) {
		return false
	}
	*e = model.Entry{Loc: s.copyURL(r.Path), Lastmod: dt(r.FetchedAt)}
	e.MD = model.Metadata{Present: true, HashRaw: verified(r.Digests), Length: r.Length, LengthOK: true, Type: r.Type}
	v, ok := state.DecodeVia(r.Via, state.Via{Href: r.URI, Modified: r.Lastmod, Hash: r.Digests, Length: r.Length, Type: r.Type})
	if !ok {
		v = state.Via{Href: r.URI, Modified: r.Lastmod, Length: -1} // an rsx before schema 7 did not record the claims
	}
	e.Links = append(links, viaLink(v))
	return true
}

func viaLink(v state.Via) model.Link {
	l := model.Link{Rel: "via", Href: v.Href, Modified: dt(v.Modified), HashRaw: string(v.Hash), Type: v.Type}
	if v.Length >= 0 {
		l.Length, l.LengthOK = v.Length, true
	}
	return l
}

// writeChangeListIndex lists the latest Change Lists of a Source.
func (s *Server) writeChangeListIndex(w io.Writer, g *generation, ss *servedSource) error {
	live := ss.lists[max(0, len(ss.lists)-g.live):]
	links := []model.Link{link("up", s.capURL(ss))}
	if len(ss.lists) > g.live {
		links = append(links, link(model.RelArchives, s.archiveURL(ss)))
	}
	d, err := model.NewWriter(w, &model.Header{Root: model.RootSitemapIndex,
		MD: model.Metadata{Capability: model.CapChangeList, From: dt(live[0].from)}, Links: links})
	if err != nil {
		return err
	}
	for _, l := range live {
		e := model.Entry{Loc: s.clURL(ss, l), MD: model.Metadata{Present: true, From: dt(l.from), Until: dt(l.until)}}
		if err := d.WriteEntry(&e); err != nil {
			return err
		}
	}
	return d.Close()
}

// writeArchive lists the Change Lists that left the index.
func (s *Server) writeArchive(w io.Writer, g *generation, ss *servedSource) error {
	d, err := model.NewWriter(w, &model.Header{Root: model.RootURLSet,
		MD: model.Metadata{Capability: model.CapChangeListArchive}, Links: []model.Link{link("up", s.capURL(ss))}})
	if err != nil {
		return err
	}
	for _, l := range ss.lists[:len(ss.lists)-g.live] {
		e := model.Entry{Loc: s.clURL(ss, l), MD: model.Metadata{Present: true, From: dt(l.from), Until: dt(l.until)}}
		if err := d.WriteEntry(&e); err != nil {
			return err
		}
	}
	return d.Close()
}

// writeChangeList writes a Change List: the Source's changes in its
// bucket, dated until its until, in the order they were recorded.
func (s *Server) writeChangeList(ctx context.Context, w io.Writer, g *generation, ss *servedSource, l changeDoc) error {
	links := []model.Link{link("up", s.capURL(ss)), link("index", s.clIndexURL(ss))}
	if len(ss.lists) > g.live {
		links = append(links, link(model.RelArchives, s.archiveURL(ss)))
	}
	d, err := model.NewWriter(w, &model.Header{Root: model.RootURLSet,
		MD: model.Metadata{Capability: model.CapChangeList, From: dt(l.from), Until: dt(l.until)}, Links: links})
	if err != nil {
		return err
	}
	if l.num >= 0 {
		c := changeWriter{s: s, g: g, ss: ss, last: l.from, until: l.until}
		err := g.view.f.EachChange(ctx, l.num*g.bucket, (l.num+1)*g.bucket, func(ch *state.Change) error {
			return c.write(d, ch)
		})
		if err != nil {
			return err
		}
	}
	return d.Close()
}

// changeWriter writes the changes of one Source, dated so that they never
// go back (timeline.go), those dated after until left out.
type changeWriter struct {
	s     *Server
	g     *generation
	ss    *servedSource
	last  time.Time
	until time.Time
	e     model.Entry
	links [1]model.Link
}

func (c *changeWriter) write(d *model.Writer, ch *state.Change) error {
	sp := c.g.byRun[ch.RunID]
	if sp == nil || sp.source != c.ss.row.ID || ch.Path == "" {
		return nil
	}
	at := sp.changeTime(ch.At)
	if at.After(c.until) {
		return nil // a later generation's
	}
	c.last = nextTime(c.last, at)
	if !c.s.changeEntry(&c.e, c.links[:0], ch, c.last) {
		return nil
	}
	if err := d.WriteEntry(&c.e); err != nil {
		return clientErr(err)
	}
	return nil
}

// changeEntry fills e with the Change List entry of a change, served with
// datetime at.
func (s *Server) changeEntry(e *model.Entry, links []model.Link, ch *state.Change, at time.Time) bool {
	if isDocPath(ch.Path) {
		return false
	}
	*e = model.Entry{Loc: s.copyURL(ch.Path)}
	e.MD = model.Metadata{Present: true, Change: model.Change(ch.Kind), Datetime: dt(at)}
	if ch.Kind != state.FileDeleted {
		e.Lastmod = dt(ch.At)
		e.MD.HashRaw, e.MD.Type = verified(ch.Digests), ch.Type
		if ch.Length >= 0 {
			e.MD.Length, e.MD.LengthOK = ch.Length, true
		}
	}
	v, ok := ch.Provenance()
	if !ok || ch.Kind == state.FileDeleted {
		v = state.Via{Href: v.Href, Length: -1}
		if !ok {
			v.Href = ch.URI
		}
	}
	e.Links = append(links, viaLink(v))
	return true
}
