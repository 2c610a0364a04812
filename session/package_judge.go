package session

import (
	"fmt"
	"strings"

	"rsx/claims"
	"rsx/dump"
	"rsx/model"
)

// RowKind is what the verification of a package said about one row.
type RowKind uint8

const (
	RowPending  RowKind = iota // not verified (yet)
	RowVerified                // the bitstream was read: its length and every declared hash match
	RowDeleted                 // a deleted resource of a Change Dump: no bitstream to verify
	RowMissing                 // the package has no member at the entry's path
	RowUnlisted                // a member the manifest does not mention
	RowMismatch                // the bitstream differs from what the manifest declares
	RowRefused                 // an unsafe path or member, refused unread
	// RowUnverifiable: the bitstream was read, but its entry declares
	// neither a length nor a hash rsx computes, so there was nothing to
	// verify it against.
	RowUnverifiable
)

// Bad reports whether the row is a failure of the package: a mismatch or a
// refusal.
func (k RowKind) Bad() bool { return k == RowMismatch || k == RowRefused }

// PackageRow is one row of a package's verification: a manifest entry, a
// member the manifest does not list, or a refusal about the package as a
// whole.
type PackageRow struct {
	Entry   int    // index into the manifest's entries; -1 for the other rows
	Member  string // the unlisted member's name
	Problem string // a refusal no entry holds
	Kind    RowKind
	Summary string // in a few words: "verified", "length, md5 differ", "refused: …"
	Detail  string // in a sentence
}

// PackageRows lays out the rows of manifest m: one per entry, then the
// members the manifest does not list and the refusals about the whole
// package. With res (a finished verification) each row carries its
// verdict; without, every row is pending.
func PackageRows(m *model.Document, res *dump.Result) []PackageRow {
	if m == nil {
		return nil
	}
	rows := make([]PackageRow, len(m.Entries))
	for i := range rows {
		rows[i].Entry = i
	}
	if res == nil {
		return rows
	}
	return append(rows, judge(m, res, rows)...)
}

// judge gives each entry row its verdict from res and returns the rows of
// unlisted members and package-level refusals.
func judge(m *model.Document, res *dump.Result, rows []PackageRow) []PackageRow {
	// Which entries a manifest path belongs to: its own path and the paths
	// of its links (patches shipped in a Change Dump package).
	byPath := map[string][]int{}
	byLoc := map[string][]int{}
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.MD.HasPath {
			byPath[e.MD.Path] = append(byPath[e.MD.Path], i)
		}
		for _, l := range e.Links {
			if l.HasPath && l.Path != e.MD.Path {
				byPath[l.Path] = append(byPath[l.Path], i)
			}
		}
		byLoc[e.Loc] = append(byLoc[e.Loc], i)
	}
	set := func(i int, k RowKind, summary, detail string) {
		cur := &rows[i]
		// The worst verdict wins: refused or mismatched over missing or
		// unlisted over the rest.
		if cur.Kind.Bad() && !k.Bad() {
			return
		}
		if (cur.Kind == RowMissing || cur.Kind == RowUnlisted) && k != RowMismatch && !k.Bad() {
			return
		}
		cur.Kind, cur.Summary, cur.Detail = k, summary, detail
	}
	// Entries whose bitstream was read and matched: everything not marked
	// otherwise below.
	for i := range rows {
		rows[i].Kind, rows[i].Summary, rows[i].Detail = RowVerified, "verified", "verified: the length and every declared hash match"
	}
	deleted := map[string]bool{}
	for _, loc := range res.Deleted {
		deleted[loc] = true
	}
	for i := range m.Entries {
		if deleted[m.Entries[i].Loc] && m.Entries[i].MD.Change == model.ChangeDeleted {
			rows[i].Kind, rows[i].Summary, rows[i].Detail = RowDeleted, "deleted", "deleted: a deleted resource has no bitstream to verify"
		}
	}
	for _, p := range res.Unverifiable {
		for _, i := range byPath[p] {
			if rows[i].Kind == RowVerified && m.Entries[i].MD.Path == p {
				rows[i].Kind, rows[i].Summary, rows[i].Detail = RowUnverifiable, "unverifiable",
					"unverifiable: the entry declares neither a length nor a hash to check the bitstream against"
			}
		}
	}
	for _, p := range res.Missing {
		for _, i := range byPath[p] {
			set(i, RowMissing, "missing member", "missing: the package has no member for path "+p)
		}
	}
	// Mismatches, gathered per entry.
	what := map[int][]string{}
	long := map[int][]string{}
	for _, mm := range res.Mismatched {
		for _, i := range byPath[mm.Path] {
			if m.Entries[i].Loc != mm.Loc && mm.Path == m.Entries[i].MD.Path {
				continue
			}
			what[i] = append(what[i], mm.What)
			long[i] = append(long[i], fmt.Sprintf("%s declared %s, the member has %s", mm.What, mm.Expected, mm.Actual))
		}
	}
	for i, ws := range what {
		set(i, RowMismatch, strings.Join(ws, ", ")+" differ", "mismatch: "+strings.Join(long[i], "; "))
	}
	var extra []PackageRow
	unlistedRow := map[string]int{}
	for _, name := range res.Unlisted {
		unlistedRow[name] = len(extra)
		extra = append(extra, PackageRow{Entry: -1, Member: name, Kind: RowUnlisted, Summary: "unlisted member",
			Detail: "unlisted: the manifest does not mention this member"})
	}
	for _, r := range res.Refused {
		summary, detail := "refused: "+r.Reason, "refused: "+r.Reason
		switch {
		case r.Path != "" && len(byPath[r.Path]) > 0:
			for _, i := range byPath[r.Path] {
				set(i, RowRefused, summary, detail)
			}
		case r.Path == "" && r.Loc != "" && len(byLoc[r.Loc]) > 0:
			for _, i := range byLoc[r.Loc] {
				set(i, RowRefused, summary, detail)
			}
		case r.Path != "":
			if j, ok := unlistedRow[r.Path]; ok {
				extra[j].Kind, extra[j].Summary, extra[j].Detail = RowRefused, summary, detail
				continue
			}
			// A manifest path of a refused item no entry holds (it cannot
			// happen today; shown rather than lost).
			extra = append(extra, PackageRow{Entry: -1, Problem: r.Path + ": " + r.Reason, Kind: RowRefused, Summary: summary, Detail: r.Path + ": " + detail})
		default:
			extra = append(extra, PackageRow{Entry: -1, Problem: r.Reason, Kind: RowRefused, Summary: summary, Detail: detail})
		}
	}
	return extra
}

// MismatchedBitstreams counts the bitstreams of a verification with a
// mismatch (one bitstream may differ in several fields).
func MismatchedBitstreams(r *dump.Result) int {
	seen := map[string]bool{}
	for _, m := range r.Mismatched {
		seen[m.Path+"\x00"+m.Loc] = true
	}
	return len(seen)
}

// PackageClaims holds a downloaded package against what its dump entry
// declares: its type (a ZIP), its length and each hash, in that order, as
// checks whose Declared is the claim and Actual what the package has when
// it differs. f is the end of the download; the verdicts mean something
// only when f.Complete.
func PackageClaims(md model.Metadata, f PackageFetched) []claims.Check {
	mismatch := func(what string) *dump.Mismatch {
		for i := range f.Mismatches {
			if strings.EqualFold(f.Mismatches[i].What, what) {
				return &f.Mismatches[i]
			}
		}
		return nil
	}
	var out []claims.Check
	if md.Type != "" {
		ck := claims.Check{Field: "type", Declared: md.Type, Verdict: claims.OK}
		switch {
		case claims.MediaType(md.Type) != "application/zip":
			ck.Verdict, ck.Reason = claims.Mismatch, "a package is a ZIP file (application/zip)"
		case f.Package == nil:
			ck.Verdict, ck.Reason = claims.Unchecked, "the package could not be opened"
		}
		out = append(out, ck)
	}
	switch {
	case md.LengthRaw == "":
	case !md.LengthOK:
		out = append(out, claims.Check{Field: "length", Declared: md.LengthRaw, Verdict: claims.Unchecked, Reason: "the declared length is not a number"})
	default:
		ck := claims.Check{Field: "length", Declared: md.LengthRaw, Verdict: claims.OK}
		if mm := mismatch("length"); mm != nil {
			ck.Verdict, ck.Actual = claims.Mismatch, mm.Actual
		}
		out = append(out, ck)
	}
	for _, h := range md.Hash {
		ck := claims.Check{Field: h.Alg, Declared: h.Value, Verdict: claims.OK}
		switch mm := mismatch(h.Alg); {
		case !model.SupportedHash(h.Alg):
			ck.Verdict, ck.Reason = claims.Unchecked, "unsupported algorithm"
		case mm != nil:
			ck.Verdict, ck.Actual = claims.Mismatch, mm.Actual
		}
		out = append(out, ck)
	}
	return out
}
