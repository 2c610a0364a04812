package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"rsx/dest/state"
)

// A Source's identity. The settings of a run (its selection, --delete,
// everything a fleet entry says) apply to the Source the URL given names.
// The engine reaches the Source's Capability List from that URL, and the
// way there may cross into another Source: a redirect, a document's up
// link, an index link. So the Source a run acts on is decided by names:
//
//   - The state records the URLs each Source was named by (state's
//     source_name): the URL given, and those asked for before a redirect
//     on the way. A run whose URL is one of them (or its key) acts on that
//     Source, wherever its Capability List moved (a redirect from http to
//     https, or to another path): the copy keeps its row.
//   - A run whose URL leads, by a redirect (or an index link no Capability
//     List vouches for), to the Capability List of a Source the state holds
//     under another name is refused (*IdentityError): nothing is written
//     or deleted. So is a run whose URL is a Source's name and now leads to
//     another Source's Capability List.
//   - The caller may name the other Sources of the same destination
//     (PlanOptions.OtherSources: a fleet's other entries): a run whose way
//     to its Capability List meets one of them (a redirect, or an up link
//     that claims it) is refused the same, before that Source has a copy.
//
// URLs are compared as the engine compares them elsewhere (exactly, once
// trimmed), without userinfo, and with http and https alike.

// hop is a step from one URL to another on the way from the URL given to
// the Source's Capability List that the Source's documents do not vouch
// for: a redirect, or the index link of a document with no Capability List.
type hop struct {
	from, to string
	index    bool
}

func (h hop) zero() bool { return h.from == "" }

func (h hop) String() string {
	if h.index {
		return "the index link of " + h.from + " to " + h.to
	}
	return "a redirect from " + h.from + " to " + h.to
}

// hop is the redirect the document's request met, if any (not the change
// from http to https of one URL).
func (d *openedDoc) hop() hop {
	if !d.redirected || sameName(d.asked, d.url) {
		return hop{}
	}
	return hop{from: nameOf(d.asked), to: nameOf(d.url)}
}

// lead puts h first on src's way (the URL given was redirected).
func (src *source) lead(h hop) {
	if src != nil && !h.zero() {
		src.hops = append([]hop{h}, src.hops...)
	}
}

func (src *source) addHop(h hop) {
	if src != nil && !h.zero() {
		src.hops = append(src.hops, h)
	}
}

// nameOf is a URL as a name: trimmed, without userinfo (a password is
// never recorded).
func nameOf(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// sameName compares two URLs as names: without userinfo, with http and
// https alike.
func sameName(a, b string) bool {
	a, b = nameOf(a), nameOf(b)
	if a == b {
		return true
	}
	return strings.TrimPrefix(strings.TrimPrefix(a, "https://"), "http://") == strings.TrimPrefix(strings.TrimPrefix(b, "https://"), "http://") &&
		(strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://")) && (strings.HasPrefix(b, "http://") || strings.HasPrefix(b, "https://"))
}

// IdentityError is a run refused because the URL given leads to the
// Capability List of another Source: nothing was written or deleted.
type IdentityError struct {
	Target string // the URL given
	// CapabilityList is the Capability List (or the document, for a Source
	// with none) the URL leads to.
	CapabilityList string
	// Other names the other Source: its key in the destination's state, or
	// the URL the caller named it by (Named).
	Other string
	Named bool
	// Way says how the URL leads there: a redirect, an index link, or an
	// up link (empty when the URL given is the other's name).
	Way string
}

func (e *IdentityError) Error() string {
	how := ""
	if e.Way != "" {
		how = " (" + e.Way + ")"
	}
	if e.Way == (hop{from: e.Target, to: e.CapabilityList}).String() {
		how = " (by a redirect)"
	}
	whose := "the Capability List of " + e.Other + ", another Source this destination holds"
	if e.Named {
		whose = "which is " + e.Other + ", named as another Source"
	}
	if sameName(e.CapabilityList, e.Other) {
		if e.Named {
			whose = "named as another Source"
		} else {
			whose = "the Capability List of another Source this destination holds"
		}
	}
	return fmt.Sprintf("refused: %s leads to %s%s, %s: a run's settings apply only to the Source its URL names; nothing was written or deleted (to sync that Source, name it by %s)",
		e.Target, e.CapabilityList, how, whose, e.Other)
}

// identify decides which Source of the destination src is (see above): it
// sets src.key to that Source's key when the state holds it, and src.names
// to the names a run records, or refuses with an *IdentityError. db may be
// nil (no destination: only others are checked).
func identify(ctx context.Context, db *state.DB, src *source, others []string) error {
	if err := src.checkOthers(others); err != nil {
		return err
	}
	names := []string{nameOf(src.target)}
	for _, h := range src.hops {
		if !h.index {
			names = append(names, h.from)
		}
	}
	if db == nil {
		src.names = names
		return nil
	}
	reached := src.key
	byKey, err := db.SourceNamed(ctx, reached)
	hasKey := err == nil
	if err != nil && !errors.Is(err, state.ErrNoSource) {
		return err
	}
	refuse := func(other string) error {
		e := &IdentityError{Target: nameOf(src.target), CapabilityList: reached, Other: other}
		if len(src.hops) > 0 {
			e.Way = src.hops[0].String()
		}
		return e
	}
	// The Source the URL given (or a URL asked for on the way) names: the
	// way may not pass through the names of two.
	var named state.Source
	hasNamed := false
	for _, n := range names {
		row, err := db.SourceNamed(ctx, n)
		if errors.Is(err, state.ErrNoSource) {
			continue
		}
		if err != nil {
			return err
		}
		if hasNamed && row.ID != named.ID {
			return refuse(row.URL)
		}
		named, hasNamed = row, true
	}
	switch {
	case hasNamed && hasKey && named.ID != byKey.ID:
		return refuse(byKey.URL)
	case hasNamed:
		src.key = named.URL
		src.names = append(names, reached)
	case hasKey && len(src.hops) > 0:
		return refuse(byKey.URL)
	case hasKey:
		// The Source's own documents lead there (its Capability List, a
		// document it lists, its Source Description): a new name of it.
		src.key = byKey.URL
		src.names = names
	default:
		src.names = names
	}
	return nil
}

// checkOthers refuses a Source whose way to its Capability List meets the
// Capability List of another Source the caller names.
func (src *source) checkOthers(others []string) error {
	if len(others) == 0 {
		return nil
	}
	met := []string{src.key, src.capList, src.claimed}
	for _, h := range src.hops {
		met = append(met, h.from, h.to)
	}
	for _, o := range others {
		if strings.TrimSpace(o) == "" || sameName(o, src.target) {
			continue // the URL given itself
		}
		for _, m := range met {
			if m != "" && sameName(o, m) {
				e := &IdentityError{Target: nameOf(src.target), CapabilityList: src.key, Other: nameOf(o), Named: true}
				switch {
				case len(src.hops) > 0:
					e.Way = src.hops[0].String()
				case src.claimed != "":
					e.Way = "the up link of " + nameOf(src.target)
				}
				return e
			}
		}
	}
	return nil
}

// identify is identify on the session's state.
func (s *Dest) identify(ctx context.Context, src *source, others []string) error {
	return identify(ctx, s.db, src, others)
}

// capListOrKey is the URL the Source was reached at: its Capability List,
// or the document given when it has none.
func (src *source) capListOrKey() string {
	if src.capList != "" {
		return src.capList
	}
	return src.key
}
