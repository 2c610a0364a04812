package demo

import (
	"encoding/hex"
	"io"
	"strconv"

	"rsx/model"
)

// docWriter writes a ResourceSync document from model values. It is the demo's
// fast path: it appends into one buffer, allocates nothing per entry, and
// writes values as given, Raw fields first, so that the broken demo can publish
// malformed values that a conforming writer would refuse.
//
// Written: for each Datetime its Raw text, else its Time when non-zero; for a
// hash HashRaw, else the list; for length LengthRaw, else Length when LengthOK;
// for pri PriRaw, else Pri when non-zero; for loc LocRaw, else Loc; Extra
// attributes with their prefix (an "rs" prefix is declared on the root).
type docWriter struct {
	w     io.Writer
	buf   []byte
	err   error
	entry string // "url" or "sitemap"
	root  string
}

const flushAt = 64 << 10

func newDocWriter(w io.Writer, h *model.Header) *docWriter {
	d := &docWriter{w: w, buf: make([]byte, 0, flushAt+16<<10), entry: "url", root: "urlset"}
	if h.Root == model.RootSitemapIndex {
		d.entry, d.root = "sitemap", "sitemapindex"
	}
	b := append(d.buf, `<?xml version="1.0" encoding="UTF-8"?>`+"\n<"...)
	b = append(b, d.root...)
	b = append(b, ` xmlns="`+model.NSSitemap+`" xmlns:rs="`+model.NSRS+`">`+"\n"...)
	if h.MD.Present {
		b = appendMD(b, "  ", &h.MD)
	}
	for i := range h.Links {
		b = appendLink(b, "  ", &h.Links[i])
	}
	d.buf = b
	return d
}

// WriteEntry writes one <url> or <sitemap> element.
func (d *docWriter) WriteEntry(e *model.Entry) error {
	if d.err != nil {
		return d.err
	}
	b := append(d.buf, "  <"...)
	b = append(b, d.entry...)
	b = append(b, ">\n    <loc>"...)
	if e.LocRaw != "" {
		b = appendText(b, e.LocRaw)
	} else {
		b = appendText(b, e.Loc)
	}
	b = append(b, "</loc>\n"...)
	if dtPresent(&e.Lastmod) {
		b = append(b, "    <lastmod>"...)
		b = appendDatetime(b, &e.Lastmod)
		b = append(b, "</lastmod>\n"...)
	}
	if e.Changefreq != "" {
		b = append(b, "    <changefreq>"...)
		b = appendText(b, e.Changefreq)
		b = append(b, "</changefreq>\n"...)
	}
	if e.MD.Present {
		b = appendMD(b, "    ", &e.MD)
	}
	for i := range e.Links {
		b = appendLink(b, "    ", &e.Links[i])
	}
	b = append(b, "  </"...)
	b = append(b, d.entry...)
	b = append(b, ">\n"...)
	d.buf = b
	if len(b) >= flushAt {
		d.flush()
	}
	return d.err
}

func (d *docWriter) flush() {
	if d.err == nil && len(d.buf) > 0 {
		_, d.err = d.w.Write(d.buf)
	}
	d.buf = d.buf[:0]
}

// Close ends the document and writes what is buffered.
func (d *docWriter) Close() error {
	if d.err != nil {
		return d.err
	}
	d.buf = append(d.buf, "</"...)
	d.buf = append(d.buf, d.root...)
	d.buf = append(d.buf, ">\n"...)
	d.flush()
	return d.err
}

func dtPresent(t *model.Datetime) bool { return t.Raw != "" || !t.Time.IsZero() }

func appendDatetime(b []byte, t *model.Datetime) []byte {
	if t.Raw != "" {
		return appendText(b, t.Raw)
	}
	return model.AppendDatetime(b, t.Time)
}

func appendAttr(b []byte, name, value string) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '=', '"')
	b = appendEscaped(b, value)
	return append(b, '"')
}

func appendDatetimeAttr(b []byte, name string, t *model.Datetime) []byte {
	if !dtPresent(t) {
		return b
	}
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '=', '"')
	b = appendDatetime(b, t)
	return append(b, '"')
}

func appendHashAttr(b []byte, raw string, h model.HashList) []byte {
	if raw != "" {
		return appendAttr(b, "hash", raw)
	}
	if len(h) == 0 {
		return b
	}
	b = append(b, ` hash="`...)
	for i, x := range h {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, x.Alg...)
		b = append(b, ':')
		if x.Digest != nil {
			b = hex.AppendEncode(b, x.Digest)
		} else {
			b = appendEscaped(b, x.Value)
		}
	}
	return append(b, '"')
}

func appendIntAttr(b []byte, name, raw string, v int64, ok bool) []byte {
	if raw != "" {
		return appendAttr(b, name, raw)
	}
	if !ok {
		return b
	}
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '=', '"')
	b = strconv.AppendInt(b, v, 10)
	return append(b, '"')
}

func appendExtra(b []byte, extra []model.Attr) []byte {
	for _, a := range extra {
		name := a.Local
		if a.Prefix != "" {
			name = a.Prefix + ":" + a.Local
		}
		b = appendAttr(b, name, a.Value)
	}
	return b
}

func appendMD(b []byte, indent string, md *model.Metadata) []byte {
	b = append(b, indent...)
	b = append(b, "<rs:md"...)
	if md.Capability != "" {
		b = appendAttr(b, "capability", string(md.Capability))
	}
	if md.Change != "" {
		b = appendAttr(b, "change", string(md.Change))
	}
	b = appendDatetimeAttr(b, "at", &md.At)
	b = appendDatetimeAttr(b, "completed", &md.Completed)
	b = appendDatetimeAttr(b, "from", &md.From)
	b = appendDatetimeAttr(b, "until", &md.Until)
	b = appendDatetimeAttr(b, "datetime", &md.Datetime)
	b = appendHashAttr(b, md.HashRaw, md.Hash)
	b = appendIntAttr(b, "length", md.LengthRaw, md.Length, md.LengthOK)
	if md.Type != "" {
		b = appendAttr(b, "type", md.Type)
	}
	if md.Encoding != "" {
		b = appendAttr(b, "encoding", md.Encoding)
	}
	if md.HasPath {
		b = appendAttr(b, "path", md.Path)
	}
	b = appendExtra(b, md.Extra)
	return append(b, "/>\n"...)
}

func appendLink(b []byte, indent string, l *model.Link) []byte {
	b = append(b, indent...)
	b = append(b, "<rs:ln"...)
	if l.Rel != "" || l.HasRel {
		b = appendAttr(b, "rel", l.Rel)
	}
	if l.Href != "" || l.HasHref {
		b = appendAttr(b, "href", l.Href)
	}
	b = appendDatetimeAttr(b, "modified", &l.Modified)
	b = appendHashAttr(b, l.HashRaw, l.Hash)
	b = appendIntAttr(b, "length", l.LengthRaw, l.Length, l.LengthOK)
	if l.Type != "" {
		b = appendAttr(b, "type", l.Type)
	}
	if l.Encoding != "" {
		b = appendAttr(b, "encoding", l.Encoding)
	}
	if l.HasPath {
		b = appendAttr(b, "path", l.Path)
	}
	b = appendIntAttr(b, "pri", l.PriRaw, int64(l.Pri), l.Pri != 0)
	b = appendExtra(b, l.Extra)
	return append(b, "/>\n"...)
}

// appendEscaped writes s as XML character data or attribute value.
func appendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&quot;"
		case '\'':
			esc = "&apos;"
		case '\n':
			esc = "&#xA;"
		case '\t':
			esc = "&#x9;"
		case '\r':
			esc = "&#xD;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// appendText writes s as character data: whitespace stays literal.
func appendText(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// entryWriter is what documents are written with: model.Writer or the fast path.
type entryWriter interface {
	WriteEntry(e *model.Entry) error
	Close() error
}

// newWriter starts a document with the model's Writer, or with the fast path
// when the Source was asked for it.
func (s *Source) newWriter(w io.Writer, h *model.Header) entryWriter {
	if s.fastXML {
		return newDocWriter(w, h)
	}
	mw, err := model.NewWriter(w, h)
	if err != nil {
		return failedWriter{err}
	}
	return mw
}

// failedWriter reports the error that prevented a document from starting.
type failedWriter struct{ err error }

func (f failedWriter) WriteEntry(*model.Entry) error { return f.err }
func (f failedWriter) Close() error                  { return f.err }
