// Package plan decides what a sync must do — create, update, delete, leave — from a Source's entries and the destination's state, without touching the network or the copy.
//
// Two planners cover the two kinds of documents:
//
//   - Snapshot, for a Resource List (or its index) or the manifests of a
//     Resource Dump: every entry is decided as it arrives (in batches of
//     state.LookupBatch look-ups), and Finish then finds the resources the
//     state holds that the snapshot no longer lists.
//   - Changes, for Change Lists and Change Dump manifests: the changes of every
//     list are collapsed to the last one per resource (the order of changes is
//     by datetime where given, else by position; a list out of forward
//     chronological order is handled, with a warning), and Finish decides each
//     resource's last change. The changes are spooled to a temporary file, so
//     that memory holds only about 40 bytes per resource changed.
//
// Both read the state through the State interface, which *state.View (batched
// queries, for a few look-ups) and *state.Index (the rows in memory, for as many
// look-ups as there are rows) implement; ForLookups picks one. Items are handed
// to an emit callback as they are decided, so that an engine can start work
// before planning ends; a dry run just counts them. Selection (--include,
// --exclude) is applied to every URI, and deletions are applied only when
// Options.Delete is set: otherwise they are PendingDelete items, for the engine
// to remember (state.Writer.MarkDeleted) so that a later run with --delete
// applies them.
package plan

import (
	"context"
	"regexp"
	"strconv"
	"time"

	"rsx/dest/state"
	"rsx/display"
	"rsx/model"
)

// Entry is what a Source's document says of a resource, or of one change to it.
type Entry struct {
	URI     string
	Length  int64 // -1 when not declared
	Digests state.Digests
	Lastmod time.Time // zero when not declared
	Type    string    // media type, "" when not declared
	// Change is the change's kind in a Change List or Change Dump manifest
	// ("created", "updated", "deleted"); "" in a snapshot.
	Change   model.Change
	Datetime time.Time // the change's datetime; zero when not given
	// Ref is the engine's own note of where the bytes are when they do not come
	// from URI (a dump package and the bitstream's path in it). The plan carries
	// it and never reads it.
	Ref string
	// Via is the entry's <rs:ln rel="via">, when its Source republished
	// the resource from another (Href "" when it gave none): the copy
	// keeps it as its provenance (state.Via).
	Via state.Via
}

// EntryOf reads an Entry from a decoded document entry.
func EntryOf(e *model.Entry) Entry {
	out := Entry{URI: e.Loc, Length: -1, Digests: state.DigestsOf(e.MD.Hash), Type: e.MD.Type, Change: e.MD.Change}
	if e.MD.LengthOK {
		out.Length = e.MD.Length
	}
	if e.Lastmod.OK {
		out.Lastmod = e.Lastmod.Time
	}
	if e.MD.Datetime.OK {
		out.Datetime = e.MD.Datetime.Time
	}
	if len(e.Links) > 0 {
		out.Via, _ = state.ViaOf(e)
	}
	return out
}

// Action is what to do with one resource.
type Action uint8

const (
	Create        Action = iota + 1 // not in the copy: fetch it
	Update                          // in the copy but different: fetch it again
	Delete                          // gone from the Source: remove the copy
	PendingDelete                   // gone from the Source, but deletions are not applied: remember it
	Unchanged                       // the copy is current
)

var actionNames = [...]string{Create: "create", Update: "update", Delete: "delete", PendingDelete: "pending-delete", Unchanged: "unchanged"}

func (a Action) String() string {
	if int(a) < len(actionNames) && actionNames[a] != "" {
		return actionNames[a]
	}
	return "action(" + strconv.Itoa(int(a)) + ")"
}

// Item is one decision.
type Item struct {
	Action Action
	// Entry is the entry decided on (for Changes, the last change of the
	// resource). For deletions found by Snapshot.Finish, and pending deletions,
	// only URI is set.
	Entry Entry
	// ID is the resource's row in the state, 0 when it has none (Create). The
	// engine reads the row (state.DB.ResourceByID) for the copy's path.
	ID int64
	// Reason says why, for people: "new", "length 10 → 12", "md5 differs", ….
	Reason string
	// Touch is set on an Unchanged item whose metadata (lastmod, change
	// datetime) should still be recorded: the bytes are the same.
	Touch bool
	// Copy is what the State knows of the copy's file without reading the
	// row again (a Snapshot's Unchanged items, from a State of ForChecks;
	// else not OK).
	Copy state.CopyFacts
}

// Summary counts a plan.
type Summary struct {
	Create, Update, Delete, PendingDelete, Unchanged int
	// Excluded counts the resources the selection leaves out.
	Excluded int
	// NotChosen counts the resources left out because Options.Only does not
	// hold them (the selection is applied after it).
	NotChosen int
	// Vanished counts the resources a Change List created and deleted inside
	// the window, or deleted before they were ever copied: nothing to do.
	Vanished int
	// Skipped counts changes before the copy's point or already processed.
	Skipped int
	// Suspect counts the changes whose datetime cannot be true (before
	// their list's from, after its until, or in the future): see Changes.
	Suspect int
	// Bytes is the declared length of everything to fetch; UnknownBytes
	// counts the creates and updates that declare none.
	Bytes        int64
	UnknownBytes int
	Warnings     []string
}

func (s *Summary) count(it *Item) {
	switch it.Action {
	case Create, Update:
		if it.Action == Create {
			s.Create++
		} else {
			s.Update++
		}
		if it.Entry.Length >= 0 {
			s.Bytes += it.Entry.Length
		} else {
			s.UnknownBytes++
		}
	case Delete:
		s.Delete++
	case PendingDelete:
		s.PendingDelete++
	case Unchanged:
		s.Unchanged++
	}
}

// State is how a planner reads the destination's state of one Source;
// *state.View and *state.Index implement it.
type State interface {
	// Find calls found for each of uris that has a row.
	Find(ctx context.Context, uris []string, found func(i int, k *state.Known) error) error
	// EachKnown walks every row (pendingOnly: those waiting for deletion).
	EachKnown(ctx context.Context, pendingOnly bool, fn func(uri string, k *state.Known) error) error
	// EachID lists the ids of every row; FindIDs reads rows by id.
	EachID(ctx context.Context, fn func(id int64) error) error
	FindIDs(ctx context.Context, ids []int64, fn func(uri string, k *state.Known) error) error
	// MaxID is the largest id.
	MaxID(ctx context.Context) (int64, error)
}

// ForLookups returns the State to plan with when about lookups URIs will be
// looked up: the Index when they are many compared with the Source's rows
// (loading it costs one scan), the View otherwise.
func ForLookups(ctx context.Context, db *state.DB, sourceID int64, lookups int) (State, error) {
	rows, err := db.Rows(ctx, sourceID)
	if err != nil {
		return nil, err
	}
	if rows > 0 && lookups >= rows/8 && lookups > 2000 {
		return db.LoadIndex(ctx, sourceID)
	}
	return db.View(sourceID), nil
}

// ForChecks returns the State of a plan whose unchanged copies are to be
// checked (a reconcile): state.Copies, whose rows carry the copies' facts
// (Item.Copy), so that a copy is checked without its row read again, and
// which holds nothing per row (its memory does not grow with the copy).
func ForChecks(_ context.Context, db *state.DB, sourceID int64) (State, error) {
	return db.Copies(sourceID), nil
}

// Selection is the --include and --exclude options: a URI is selected when it
// matches an include pattern (or none is given) and no exclude pattern.
type Selection struct {
	include, exclude []*regexp.Regexp
}

// NewSelection compiles the patterns (Go RE2 syntax).
func NewSelection(include, exclude []string) (*Selection, error) {
	s := &Selection{}
	for _, p := range include {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, display.RegexpProblem("--include", p, err)
		}
		s.include = append(s.include, re)
	}
	for _, p := range exclude {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, display.RegexpProblem("--exclude", p, err)
		}
		s.exclude = append(s.exclude, re)
	}
	return s, nil
}

// Selected reports whether uri is selected. A nil Selection selects everything.
func (s *Selection) Selected(uri string) bool {
	if s == nil {
		return true
	}
	if len(s.include) > 0 {
		in := false
		for _, re := range s.include {
			if re.MatchString(uri) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, re := range s.exclude {
		if re.MatchString(uri) {
			return false
		}
	}
	return true
}

// Options are common to both planners.
type Options struct {
	Selection *Selection
	// Delete applies deletions; otherwise they are PendingDelete items.
	Delete bool
	// Only, when not nil, limits the plan to these resources: the others
	// are neither planned nor deleted, only counted (Summary.NotChosen).
	Only *URISet
	// TempDir is where a Snapshot keeps the hashes of the new URIs past
	// 65,536 of them (os.TempDir() when empty).
	TempDir string
}

// compare decides whether the copy k holds the bytes entry e describes.
func compare(e *Entry, k *state.Known) (Action, string, bool) {
	if k.Pending {
		return Update, "listed again after its deletion", false
	}
	_, differ := k.CompareDigests(e.Digests)
	if len(differ) > 0 {
		return Update, differ[0] + " differs", false
	}
	if e.Length >= 0 && k.Length >= 0 && e.Length != k.Length {
		return Update, "length " + strconv.FormatInt(k.Length, 10) + " → " + strconv.FormatInt(e.Length, 10), false
	}
	shared, _ := k.CompareDigests(e.Digests)
	lastmodDiffers := !e.Lastmod.IsZero() && !e.Lastmod.Equal(k.Lastmod)
	if shared > 0 {
		if lastmodDiffers {
			return Unchanged, "same digest, new lastmod", true
		}
		return Unchanged, "same digest", false
	}
	if lastmodDiffers {
		if k.Lastmod.IsZero() {
			return Update, "lastmod " + model.FormatDatetime(e.Lastmod) + ", none recorded", false
		}
		return Update, "lastmod " + model.FormatDatetime(k.Lastmod) + " → " + model.FormatDatetime(e.Lastmod), false
	}
	if !e.Lastmod.IsZero() {
		return Unchanged, "same lastmod", false
	}
	return Update, "no digest or lastmod to compare", false
}
