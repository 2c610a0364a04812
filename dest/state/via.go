package state

import (
	"encoding/json"
	"strconv"
	"time"

	"rsx/model"
)

// Via is where a copy came from (ResourceSync §12.7, "Republishing
// Resources"): the original resource's URI and what its Source declared of
// it, as the <rs:ln rel="via"> that the entries of a served copy carry
// (rsx serve --dest). Of a resource whose Source gave it a via link (an
// aggregator republished it), it is that link, kept as it was: a copy of a
// copy names the original.
type Via struct {
	Href     string    // the original resource's URI
	Modified time.Time // its modification time there; zero: not declared
	Hash     Digests   // the digests declared there; "": none
	Length   int64     // its length there; -1: not declared
	Type     string    // its media type there; "": not declared
}

// ViaOf is the via link of a document entry: its first <rs:ln rel="via">
// (href resolved against the entry's loc), or ok false when it has none.
func ViaOf(e *model.Entry) (v Via, ok bool) {
	for i := range e.Links {
		l := &e.Links[i]
		if !l.HasHref || !model.HasRel(l.Rel, "via") {
			continue
		}
		v = Via{Href: model.ResolveHref(e.Loc, l.Href), Hash: DigestsOf(l.Hash), Length: -1, Type: l.Type}
		if l.Modified.OK {
			v.Modified = l.Modified.Time
		}
		if l.LengthOK {
			v.Length = l.Length
		}
		return v, true
	}
	return Via{}, false
}

// viaJSON is the stored form: each pointer nil is the row's own value (not
// written), each held value nil is "not declared".
type viaJSON struct {
	Href     *string  `json:"href,omitempty"`
	Modified **string `json:"modified,omitempty"`
	Hash     **string `json:"hash,omitempty"`
	Length   **int64  `json:"length,omitempty"`
	Type     **string `json:"type,omitempty"`
}

// EncodeVia is v as the via column stores it, beside a row whose own
// values are own (its uri, lastmod, digests, length and type): only what
// differs is written, so that the usual copy, whose Source declared what it
// served, stores "{}". A run_file row, which has no lastmod, gives an own
// Modified that is zero.
func EncodeVia(v, own Via) string {
	var j viaJSON
	if v.Href != own.Href {
		j.Href = &v.Href
	}
	if !v.Modified.Equal(own.Modified) {
		j.Modified = nullable(v.Modified.IsZero(), func() string { return model.FormatDatetime(v.Modified) })
	}
	if v.Hash != own.Hash {
		j.Hash = nullable(v.Hash == "", func() string { return string(v.Hash) })
	}
	if v.Length != own.Length {
		j.Length = nullable(v.Length < 0, func() int64 { return v.Length })
	}
	if v.Type != own.Type {
		j.Type = nullable(v.Type == "", func() string { return v.Type })
	}
	b, _ := json.Marshal(j)
	return string(b)
}

// nullable is a value to write: null when none, else value().
func nullable[T any](none bool, value func() T) **T {
	var p *T
	if !none {
		x := value()
		p = &x
	}
	return &p
}

// DecodeVia reads a via column beside a row whose own values are own; ok
// is false when there is none (a row of an older rsx) or it does not read.
func DecodeVia(s string, own Via) (v Via, ok bool) {
	if s == "" {
		return Via{}, false
	}
	var j map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return Via{}, false
	}
	v = own
	// field reads key into dst when given: a JSON null is "not declared"
	// (none), anything else is read.
	field := func(key string, none func(), dst any) bool {
		raw, given := j[key]
		switch {
		case !given:
			return true
		case string(raw) == "null":
			none()
			return true
		}
		return json.Unmarshal(raw, dst) == nil
	}
	var modified, hash string
	var length int64
	okAll := field("href", func() { v.Href = "" }, &v.Href) &&
		field("modified", func() { v.Modified = time.Time{} }, &modified) &&
		field("hash", func() { v.Hash = "" }, &hash) &&
		field("length", func() { v.Length = -1 }, &length) &&
		field("type", func() { v.Type = "" }, &v.Type)
	if !okAll {
		return Via{}, false
	}
	if raw, given := j["modified"]; given && string(raw) != "null" {
		d, err := model.ParseDatetime(modified)
		if err != nil {
			return Via{}, false
		}
		v.Modified = d.Time
	}
	if raw, given := j["hash"]; given && string(raw) != "null" {
		v.Hash = Digests(hash)
	}
	if raw, given := j["length"]; given && string(raw) != "null" {
		v.Length = length
	}
	if v.Href == "" {
		return Via{}, false
	}
	return v, true
}

// String is v for messages: its href and what was declared.
func (v Via) String() string {
	s := v.Href
	if !v.Modified.IsZero() {
		s += " modified " + model.FormatDatetime(v.Modified)
	}
	if v.Length >= 0 {
		s += " length " + strconv.FormatInt(v.Length, 10)
	}
	if v.Hash != "" {
		s += " hash " + string(v.Hash)
	}
	if v.Type != "" {
		s += " type " + v.Type
	}
	return s
}
