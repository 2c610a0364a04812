package engine

import (
	"rsx/dest/plan"
	"rsx/dest/state"
)

// provenance records in res where its copy came from (state.Via: what rsx
// serve --dest republishes, §12.7): the via link the Source gave the entry,
// kept as it was, so that a copy of a copy names the original; else the
// entry's own claims (its URI, lastmod, declared digests, length and type).
// Call it once res has its digests.
func provenance(res *state.Resource, e *plan.Entry) {
	v := e.Via
	if v.Href == "" {
		v = state.Via{Href: e.URI, Modified: e.Lastmod, Hash: e.Digests, Length: e.Length, Type: e.Type}
	}
	res.Type = e.Type
	res.Via = state.EncodeVia(v, rowVia(res))
}

// rowVia is what a via column leaves out beside a resource's row.
func rowVia(res *state.Resource) state.Via {
	return state.Via{Href: res.URI, Modified: res.Lastmod, Hash: res.Digests, Length: res.Length, Type: res.Type}
}

// fileVia is a written copy's provenance as its run_file row stores it
// (beside the file's URI, digests, length and type; the row has no lastmod).
func fileVia(res *state.Resource) string {
	v, ok := state.DecodeVia(res.Via, rowVia(res))
	if !ok {
		return ""
	}
	return state.EncodeVia(v, state.Via{Href: res.URI, Hash: res.Digests, Length: res.Length, Type: res.Type})
}

// deletionVia is the provenance of a deletion applied: the via link the
// Source gave its entry (a republished resource), or "" when it gave none.
func deletionVia(e *plan.Entry) string {
	if e.Via.Href == "" {
		return ""
	}
	return state.EncodeVia(e.Via, state.Via{Href: e.URI, Length: -1})
}
