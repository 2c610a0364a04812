package memento

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"rsx/model"
)

// MediaType is the media type of a TimeMap (RFC 7089 section 5).
const MediaType = "application/link-format"

// TimeMap is what a TimeMap says of a resource (RFC 7089 section 5): the
// original resource, its TimeGate, and its mementos with their datetimes.
type TimeMap struct {
	Original string   // the original resource (rel="original"); "" when not given
	TimeGate string   // its TimeGate (rel="timegate"); "" when not given
	Self     string   // the TimeMap itself (rel="self")
	From     string   // the self link's from and until, for a TimeMap in pages
	Until    string   //
	TimeMaps []string // other TimeMaps (rel="timemap"): the other pages
	Mementos []Memento
	// Problems are what the TimeMap gets wrong, in words: a memento without
	// a valid datetime, no original resource.
	Problems []string
}

// Memento is one version of the resource.
type Memento struct {
	URL         string    // resolved against the TimeMap's URL
	Datetime    time.Time // zero when not given or invalid
	DatetimeRaw string    // as written
	Rels        []string  // the link's relation types: memento, and first, last, prev, next …
	Type        string    // the type parameter, when given
}

// IsFirst tells whether the TimeMap marks the memento as the first one.
func (m Memento) IsFirst() bool { return hasToken(m.Rels, "first") }

// IsLast tells whether the TimeMap marks the memento as the last one.
func (m Memento) IsLast() bool { return hasToken(m.Rels, "last") }

// ParseTimeMap reads a TimeMap found at base (its URL, to resolve relative
// targets against). The mementos are sorted by datetime, those without one
// last in document order.
func ParseTimeMap(data []byte, base string) (*TimeMap, error) {
	links, err := ParseLinks(data)
	if err != nil {
		return nil, fmt.Errorf("read the TimeMap: %w", err)
	}
	tm := &TimeMap{}
	for _, l := range links {
		u := resolve(base, l.Target)
		switch {
		case l.HasRel("memento"):
			m := Memento{URL: u, Rels: l.Rels()}
			m.Type, _ = l.Param("type")
			if raw, ok := l.Param("datetime"); ok {
				m.DatetimeRaw = raw
				if t, err := ParseHTTPDate(raw); err == nil {
					m.Datetime = t
				} else {
					tm.Problems = append(tm.Problems, fmt.Sprintf("memento %s: datetime %q is not an HTTP-date", u, raw))
				}
			} else {
				tm.Problems = append(tm.Problems, fmt.Sprintf("memento %s has no datetime", u))
			}
			tm.Mementos = append(tm.Mementos, m)
		}
		// A link may be several things at once (rel="original timegate").
		switch {
		case l.HasRel("original") && tm.Original == "":
			tm.Original = u
		}
		if l.HasRel("timegate") && tm.TimeGate == "" {
			tm.TimeGate = u
		}
		if l.HasRel("self") && tm.Self == "" {
			tm.Self = u
			tm.From, _ = l.Param("from")
			tm.Until, _ = l.Param("until")
		}
		if l.HasRel("timemap") && !l.HasRel("self") {
			tm.TimeMaps = append(tm.TimeMaps, u)
		}
	}
	if tm.Original == "" {
		tm.Problems = append(tm.Problems, `no link to the original resource (rel="original")`)
	}
	sort.SliceStable(tm.Mementos, func(i, j int) bool {
		a, b := tm.Mementos[i].Datetime, tm.Mementos[j].Datetime
		if a.IsZero() || b.IsZero() {
			return !a.IsZero() && b.IsZero()
		}
		return a.Before(b)
	})
	return tm, nil
}

// At returns the index of the memento in effect at t: the last one whose
// datetime is not after t, or the first one when t is before them all
// (RFC 7089 leaves the choice to the TimeGate; this is the usual one);
// -1 when there is none with a datetime.
func (tm *TimeMap) At(t time.Time) int {
	best := -1
	for i, m := range tm.Mementos {
		if m.Datetime.IsZero() {
			continue
		}
		if best < 0 || !m.Datetime.After(t) {
			best = i
		}
	}
	return best
}

// Index returns the index of the memento at u (or -1).
func (tm *TimeMap) Index(u string) int {
	for i, m := range tm.Mementos {
		if m.URL == u {
			return i
		}
	}
	return -1
}

// HTTP-date layouts (RFC 7231 section 7.1.1.1): IMF-fixdate, then the two
// obsolete forms.
var httpDateLayouts = []string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	"Monday, 02-Jan-06 15:04:05 GMT",
	"Mon Jan _2 15:04:05 2006",
}

// ParseHTTPDate reads an HTTP-date, as Memento-Datetime and the datetime
// of a TimeMap are written.
func ParseHTTPDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range httpDateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an HTTP-date (like Mon, 05 Jan 2026 09:00:00 GMT)", s)
}

// FormatHTTPDate writes t as an HTTP-date, as Accept-Datetime wants it.
func FormatHTTPDate(t time.Time) string { return t.UTC().Format(httpDateLayouts[0]) }

// ParseWhen reads a datetime a person typed: an HTTP-date, or a W3C
// datetime of any precision ("2026", "2026-01-05", "2026-01-05T10:00Z"),
// a time without a zone being taken as UTC, and "T" may be a space.
func ParseWhen(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("no datetime given")
	}
	if t, err := ParseHTTPDate(s); err == nil {
		return t, nil
	}
	w := s
	if len(w) > 10 && w[10] == ' ' {
		w = w[:10] + "T" + w[11:]
	}
	try := []string{w}
	if strings.Contains(w, "T") && !strings.HasSuffix(w, "Z") && !strings.ContainsAny(w[strings.Index(w, "T"):], "+-") {
		try = append(try, w+"Z")
	}
	for _, c := range try {
		if d, err := model.ParseDatetime(c); err == nil && d.OK {
			return d.Time.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a datetime: write 2026-01-05, 2026-01-05T10:30Z or an HTTP-date", s)
}

// resolve resolves ref against base; ref as it is when either does not
// parse.
func resolve(base, ref string) string {
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	b, err := url.Parse(base)
	if err != nil || base == "" {
		return ref
	}
	return b.ResolveReference(r).String()
}

func hasToken(ts []string, t string) bool {
	for _, x := range ts {
		if strings.EqualFold(x, t) {
			return true
		}
	}
	return false
}
