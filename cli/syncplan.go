package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/display"
)

// planKind is a kind of decision a dry run lists: its action, its key in
// the JSON (plan.items), and how the text shows it.
type planKind struct {
	action plan.Action
	key    string
	title  string
	mark   string
}

// planKinds are the kinds listed, in order.
var planKinds = []planKind{
	{plan.Create, "create", "to create", "+"},
	{plan.Update, "update", "to update", "~"},
	{plan.Delete, "delete", "to delete", "-"},
	{plan.PendingDelete, "pending_delete", "deletions remembered (no --delete)", "·"},
}

// planTextLines is how many decisions of each kind a dry run's text shows.
const planTextLines = 10

// planItemJSON is one decision in plan.items: the resource, the file in
// DEST it writes or removes, the length (declared, of what is fetched; the
// copy's, of what is deleted) and why.
type planItemJSON struct {
	URL    string  `json:"url"`
	Path   *string `json:"path"`
	Length *int64  `json:"length"`
	Reason string  `json:"reason,omitempty"`
}

func planItemJSONOf(d engine.Decision) planItemJSON {
	j := planItemJSON{URL: d.URI, Path: strOrNull(d.Path), Reason: d.Reason}
	if d.Length >= 0 {
		n := d.Length
		j.Length = &n
	}
	return j
}

// appendIndented writes j as the encoder does, for writeJSONStreamed.
func (j planItemJSON) appendIndented(b []byte, prefix string) []byte {
	b = append(b, "{\n"...)
	b = appendJSONString(appendField(b, prefix, "url"), j.URL)
	b = appendField(append(b, ",\n"...), prefix, "path")
	if j.Path == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *j.Path)
	}
	b = appendField(append(b, ",\n"...), prefix, "length")
	if j.Length == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *j.Length, 10)
	}
	if j.Reason != "" {
		b = appendJSONString(appendField(append(b, ",\n"...), prefix, "reason"), j.Reason)
	}
	b = append(b, '\n')
	b = append(b, prefix...)
	return append(b, '}')
}

// planItemsJSON are a dry run's decisions by kind, each list streamed from
// the plan's spool as the document is written (writeJSON): a plan of a
// million creates is never held in memory to be printed.
type planItemsJSON map[string]*streamedList

// planItemsOf makes the lists of p's decisions.
func planItemsOf(p *engine.Plan) planItemsJSON {
	out := planItemsJSON{}
	for _, k := range planKinds {
		out[k.key] = streamList(func(emit func(any) error) error {
			return p.Decisions(context.Background(), func(d engine.Decision) error { return emit(planItemJSONOf(d)) }, k.action)
		})
	}
	return out
}

// streamedLists are the lists writeJSON streams: those of plan.items, and
// the lists read when the plan read more than it keeps in memory.
func (s syncJSON) streamedLists() []*streamedList {
	var out []*streamedList
	for _, l := range s.Plan.Items {
		out = append(out, l)
	}
	if ls := s.Lists; ls != nil && ls.p.ListCount() > len(ls.p.Lists) {
		ls.stream = streamList(func(emit func(any) error) error {
			return ls.p.EachList(func(r engine.ListRead) error { return emit(syncListJSONOf(r)) })
		})
		out = append(out, ls.stream)
	}
	return out
}

// errListed stops the pass over a plan's decisions once each kind has its
// first lines.
var errListed = errors.New("listed")

// writePlanDecisions writes the first planTextLines decisions of each kind
// of a dry run's plan, with their counts and how to see them all. The
// plan's spool is read once, at most.
func writePlanDecisions(w io.Writer, st textStyles, p *engine.Plan) {
	s := p.Summary
	count := map[plan.Action]int{plan.Create: s.Create, plan.Update: s.Update, plan.Delete: s.Delete, plan.PendingDelete: s.PendingDelete}
	first := map[plan.Action][]engine.Decision{}
	missing := 0
	for _, k := range planKinds {
		missing += min(count[k.action], planTextLines)
	}
	if missing == 0 {
		return
	}
	err := p.Decisions(context.Background(), func(d engine.Decision) error {
		if len(first[d.Action]) < planTextLines {
			first[d.Action] = append(first[d.Action], d)
			if missing--; missing == 0 {
				return errListed
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errListed) {
		fmt.Fprintf(w, "%s the plan's decisions could not be read: %s\n", st.err("✗"), esc(err.Error()))
		return
	}
	for _, k := range planKinds {
		n := max(count[k.action], len(first[k.action]))
		if n == 0 {
			continue
		}
		more := ""
		if n > len(first[k.action]) {
			more = fmt.Sprintf(" (the first %d; --json lists every one)", len(first[k.action]))
		}
		fmt.Fprintf(w, "  %s: %s%s\n", k.title, display.Plural(n, "resource", "resources"), more)
		for _, d := range first[k.action] {
			writePlanDecision(w, st, k.mark, d)
		}
	}
}

// writePlanDecision is one decision's line: the file in DEST (the URI when
// there is none), its size and why.
func writePlanDecision(w io.Writer, st textStyles, mark string, d engine.Decision) {
	what := d.Path
	if what == "" {
		what = d.URI
	}
	line := "    " + mark + " " + esc(what)
	if d.Length >= 0 {
		line += "  " + display.Size(d.Length)
	}
	if d.Reason != "" && d.Action != plan.Create {
		line += "  " + st.dim(esc(d.Reason))
	}
	fmt.Fprintln(w, line)
}

func syncListJSONOf(l engine.ListRead) syncListJSON {
	return syncListJSON{URL: l.URL, Kind: l.Kind, From: timeOrNull(l.From), Until: timeOrNull(l.Until),
		Entries: l.Entries, Skipped: l.Skipped, OutOfOrder: l.OutOfOrder, Suspect: l.Suspect, Unchanged: l.Unchanged, Archived: l.Archived}
}

// syncListsJSON is the lists a plan read: encoded whole, or, when the plan
// read more than it keeps in memory (a Change List Index of a million
// lists), streamed from its spool where writeJSON writes the document
// (syncJSON.streamedLists sets stream).
type syncListsJSON struct {
	p      *engine.Plan
	stream *streamedList
	read   []syncListJSON // decoded from a document (UnmarshalJSON)
}

func (l *syncListsJSON) MarshalJSON() ([]byte, error) {
	if l.stream != nil {
		return l.stream.MarshalJSON()
	}
	all := []syncListJSON{}
	if l.p == nil {
		all = append(all, l.read...)
	} else if err := l.p.EachList(func(r engine.ListRead) error { all = append(all, syncListJSONOf(r)); return nil }); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(all)
	return b.Bytes(), err
}

// UnmarshalJSON reads the lists of a sync document (a fleet's line, a
// test's), as the array MarshalJSON writes.
func (l *syncListsJSON) UnmarshalJSON(b []byte) error {
	*l = syncListsJSON{}
	return json.Unmarshal(b, &l.read)
}
