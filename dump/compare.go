package dump

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"rsx/model"
)

// maxDifferences is the number of differences CompareManifests describes.
const maxDifferences = 20

// CompareManifests compares the manifest inside a package with the copy a
// dump's contents link points to. Their entries must be equal as multisets of
// (loc, path, hash, length, type, change, datetime), compared by value: hash
// algorithms and hex case, and the spelling of a datetime, do not matter. It
// returns a description of each difference (at most 20, then a count), nil
// when they agree.
func CompareManifests(inPackage, contentsCopy *model.Document) []string {
	var out []string
	if a, b := inPackage.MD.Capability, contentsCopy.MD.Capability; a != b {
		out = append(out, fmt.Sprintf("capability %q in the package, %q in the copy", a, b))
	}
	count := make(map[string]int, len(inPackage.Entries))
	for i := range inPackage.Entries {
		count[entryKey(&inPackage.Entries[i])]++
	}
	var onlyCopy []*model.Entry
	for i := range contentsCopy.Entries {
		k := entryKey(&contentsCopy.Entries[i])
		if count[k] > 0 {
			count[k]--
		} else {
			onlyCopy = append(onlyCopy, &contentsCopy.Entries[i])
		}
	}
	var onlyPackage []*model.Entry
	for i := range inPackage.Entries {
		k := entryKey(&inPackage.Entries[i])
		if count[k] > 0 {
			count[k]--
			onlyPackage = append(onlyPackage, &inPackage.Entries[i])
		}
	}
	n := 0
	add := func(s string) {
		if n < maxDifferences {
			out = append(out, s)
		}
		n++
	}
	// An entry of each side with the same loc and path is one entry changed;
	// so is, among those left, one with the same loc (the path differs, as when
	// a publisher writes the copy with its own file-system paths).
	pair := make([]int, len(onlyPackage)) // index into onlyCopy, or -1
	paired := make([]bool, len(onlyCopy))
	for i := range pair {
		pair[i] = -1
	}
	for _, key := range []func(*model.Entry) string{
		func(e *model.Entry) string { return e.Loc + "\x00" + e.MD.Path },
		func(e *model.Entry) string { return e.Loc },
	} {
		pending := make(map[string][]int, len(onlyCopy))
		for i, e := range onlyCopy {
			if !paired[i] {
				pending[key(e)] = append(pending[key(e)], i)
			}
		}
		for i, e := range onlyPackage {
			if pair[i] >= 0 {
				continue
			}
			if q := pending[key(e)]; len(q) > 0 {
				pending[key(e)] = q[1:]
				pair[i], paired[q[0]] = q[0], true
			}
		}
	}
	for i, e := range onlyPackage {
		if j := pair[i]; j >= 0 {
			add(e.Loc + ": " + strings.Join(fieldDifferences(e, onlyCopy[j]), "; "))
			continue
		}
		add("only in the package's manifest: " + describeEntry(e))
	}
	for i, e := range onlyCopy {
		if !paired[i] {
			add("only in the contents copy: " + describeEntry(e))
		}
	}
	if n > maxDifferences {
		out = append(out, fmt.Sprintf("… and %d more differences", n-maxDifferences))
	}
	return out
}

// entryKey is the comparable value of a manifest entry.
func entryKey(e *model.Entry) string {
	var b strings.Builder
	b.WriteString(e.Loc)
	b.WriteByte(0)
	if e.MD.HasPath {
		b.WriteString("p:" + e.MD.Path)
	}
	b.WriteByte(0)
	tokens := strings.Fields(e.MD.Hash.String())
	slices.Sort(tokens)
	b.WriteString(strings.ToLower(strings.Join(tokens, " ")))
	b.WriteByte(0)
	switch {
	case e.MD.LengthOK:
		b.WriteString(strconv.FormatInt(e.MD.Length, 10))
	case e.MD.LengthRaw != "":
		b.WriteString("raw:" + e.MD.LengthRaw)
	}
	b.WriteByte(0)
	b.WriteString(strings.ToLower(e.MD.Type))
	b.WriteByte(0)
	b.WriteString(string(e.MD.Change))
	b.WriteByte(0)
	if e.MD.Datetime.OK {
		b.WriteString(e.MD.Datetime.Time.UTC().Format(time.RFC3339Nano))
	} else {
		b.WriteString(e.MD.Datetime.Raw)
	}
	return b.String()
}

func describeEntry(e *model.Entry) string {
	var b strings.Builder
	b.WriteString(e.Loc)
	var attrs []string
	if e.MD.HasPath {
		attrs = append(attrs, "path="+e.MD.Path)
	}
	if e.MD.Change != "" {
		attrs = append(attrs, "change="+string(e.MD.Change))
	}
	if e.MD.Datetime.Raw != "" {
		attrs = append(attrs, "datetime="+e.MD.Datetime.Raw)
	}
	if e.MD.LengthRaw != "" {
		attrs = append(attrs, "length="+e.MD.LengthRaw)
	}
	if e.MD.Type != "" {
		attrs = append(attrs, "type="+e.MD.Type)
	}
	if len(e.MD.Hash) > 0 {
		attrs = append(attrs, "hash="+e.MD.Hash.String())
	} else if e.MD.HashRaw != "" {
		attrs = append(attrs, "hash="+e.MD.HashRaw)
	}
	if len(attrs) > 0 {
		b.WriteString(" (" + strings.Join(attrs, " ") + ")")
	}
	return b.String()
}

// fieldDifferences describes how two entries with the same loc differ.
func fieldDifferences(inPackage, contentsCopy *model.Entry) []string {
	a, b := inPackage.MD, contentsCopy.MD
	var out []string
	diff := func(name, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s %s in the package, %s in the copy", name, orNone(x), orNone(y)))
		}
	}
	hashes := func(md model.Metadata) string {
		t := strings.Fields(md.Hash.String())
		slices.Sort(t)
		return strings.Join(t, " ")
	}
	length := func(md model.Metadata) string {
		if md.LengthOK {
			return strconv.FormatInt(md.Length, 10)
		}
		return md.LengthRaw
	}
	when := func(d model.Datetime) string {
		if d.OK {
			return d.Time.UTC().Format(time.RFC3339Nano)
		}
		return d.Raw
	}
	path := func(md model.Metadata) string {
		if md.HasPath {
			return md.Path
		}
		return ""
	}
	diff("path", path(a), path(b))
	diff("length", length(a), length(b))
	diff("hash", hashes(a), hashes(b))
	diff("type", strings.ToLower(a.Type), strings.ToLower(b.Type))
	diff("change", string(a.Change), string(b.Change))
	diff("datetime", when(a.Datetime), when(b.Datetime))
	if len(out) == 0 {
		out = append(out, "differs")
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
