package ui

import (
	"math"
	"strconv"
	"strings"

	"rsx/display"
	"rsx/model"
	"rsx/ui/components"
)

// colKind is a column a document view may show.
type colKind uint8

const (
	colLoc colKind = iota
	colLastmod
	colDatetime
	colChange
	colLength
	colType
	colHash
	colCapability
	colPath
	colAt
	colFrom
	colUntil
	colPart
	colLinks
	colPackage // loc of a dump's package
	colCopy    // the entry's state in the local copy attached (local.go)
)

// colLast is the last column kind.
const colLast = colCopy

// name is the column's title and its name in "name:value" filters.
func (k colKind) name() string {
	switch k {
	case colLoc:
		return "loc"
	case colLastmod:
		return "lastmod"
	case colDatetime:
		return "datetime"
	case colChange:
		return "change"
	case colLength:
		return "length"
	case colType:
		return "type"
	case colHash:
		return "hash"
	case colCapability:
		return "capability"
	case colPath:
		return "path"
	case colAt:
		return "at"
	case colFrom:
		return "from"
	case colUntil:
		return "until"
	case colPart:
		return "part"
	case colLinks:
		return "links"
	case colPackage:
		return "package"
	case colCopy:
		return "copy"
	}
	return ""
}

// colByName is the column named name (case-insensitively), if any.
func colByName(name string) (colKind, bool) {
	name = strings.ToLower(name)
	for k := colLoc; k <= colLast; k++ {
		if k.name() == name {
			return k, true
		}
	}
	return 0, false
}

// columnsFor chooses the columns that suit a document type.
func columnsFor(c model.Capability, root model.RootKind, combined bool) []colKind {
	var cols []colKind
	if combined {
		cols = append(cols, colPart)
	}
	if root == model.RootSitemapIndex && !combined {
		switch c {
		case model.CapChangeList, model.CapChangeDump, model.CapChangeListArchive, model.CapChangeDumpArchive:
			return append(cols, colLoc, colFrom, colUntil)
		default:
			return append(cols, colLoc, colAt)
		}
	}
	switch c {
	case model.CapDescription, model.CapCapabilityList:
		return append(cols, colCapability, colLoc, colLinks)
	case model.CapResourceList:
		return append(cols, colLoc, colLastmod, colLength, colType, colHash)
	case model.CapChangeList:
		return append(cols, colDatetime, colChange, colLoc, colLength, colType, colHash)
	case model.CapResourceDump:
		return append(cols, colPackage, colLength, colType, colAt)
	case model.CapChangeDump:
		return append(cols, colPackage, colLength, colType, colFrom, colUntil)
	case model.CapResourceDumpManifest:
		return append(cols, colPath, colLoc, colLastmod, colLength, colHash)
	case model.CapChangeDumpManifest:
		return append(cols, colPath, colChange, colDatetime, colLoc, colLength, colHash)
	case model.CapResourceListArchive, model.CapResourceDumpArchive:
		// The archived lists (dumps), each by when it was made.
		return append(cols, colLoc, colAt)
	case model.CapChangeListArchive, model.CapChangeDumpArchive:
		return append(cols, colLoc, colFrom, colUntil)
	}
	return append(cols, colLoc, colLastmod, colCapability, colType, colLength)
}

// colLayout is the width policy of a column kind. Columns are listed most
// important first; those that do not fit at their Min are left out (the
// detail pane shows everything).
func colLayout(k colKind) (minW, maxW, flex int, right bool, trunc int) {
	switch k {
	case colLoc, colPackage:
		return 24, 0, 6, false, components.TruncMiddle
	case colPath:
		return 16, 48, 4, false, components.TruncMiddle
	case colLastmod, colDatetime, colAt, colFrom, colUntil:
		return 20, 25, 0, false, components.TruncEnd
	case colChange:
		return 7, 7, 0, false, components.TruncEnd
	case colLength:
		return 9, 10, 0, true, components.TruncEnd
	case colType:
		// No Max: a media type is read whole or not at all, and some are
		// long (application/vnd.openxmlformats-officedocument…).
		return 10, 0, 1, false, components.TruncEnd
	case colHash:
		// No Max: a sha-256 digest shows whole where there is room.
		return 12, 0, 1, false, components.TruncEnd
	case colCapability:
		return 14, 21, 1, false, components.TruncEnd
	case colPart:
		return 4, 5, 0, true, components.TruncEnd
	case colLinks:
		return 5, 5, 0, true, components.TruncEnd
	case colCopy:
		return 8, 8, 0, false, components.TruncEnd
	}
	return 6, 0, 1, false, components.TruncEnd
}

// displayLoc shortens a loc for the table (components.DisplayLoc): on the
// document's own host it is shown from its path.
func displayLoc(origin, loc string) string { return components.DisplayLoc(origin, loc) }

// originOf is "scheme://host[:port]" of an absolute URL, "" otherwise
// (components.OriginOf).
func originOf(u string) string { return components.OriginOf(u) }

// colText is the cell text of column k for entry i of d.
func colText(d *document, k colKind, i int) string {
	t := d.entries
	switch k {
	case colLoc, colPackage:
		return t.Loc(i)
	case colLastmod:
		return t.Lastmod(i).Raw
	case colDatetime:
		if dt := t.Datetime(i); dt.Raw != "" {
			return dt.Raw
		}
		return t.Lastmod(i).Raw
	case colChange:
		return string(t.Change(i))
	case colLength:
		if n, ok := t.Length(i); ok {
			return formatLength(n)
		}
		return ""
	case colType:
		return t.Type(i)
	case colHash:
		return t.HashRaw(i)
	case colCapability:
		return string(t.Capability(i))
	case colPath:
		return t.Path(i)
	case colAt:
		return t.At(i).Raw
	case colFrom:
		return t.From(i).Raw
	case colUntil:
		return t.Until(i).Raw
	case colPart:
		if p := d.partOf(i); p >= 0 {
			return strconv.Itoa(p + 1)
		}
		return ""
	case colLinks:
		if n := t.LinkCount(i); n > 0 {
			return strconv.Itoa(n)
		}
		return ""
	case colCopy:
		return localWord(d.local.state(i))
	}
	return ""
}

// withCopyColumn adds the local copy's column after the loc column.
func withCopyColumn(kinds []colKind) []colKind {
	for i, k := range kinds {
		if k == colLoc {
			return append(append(append([]colKind(nil), kinds[:i+1]...), colCopy), kinds[i+1:]...)
		}
	}
	return append(kinds, colCopy)
}

// colNumKey reports whether column k sorts by number (or time), and gives
// the key of entry i: datetimes as Unix nanoseconds (math.MinInt64 when
// absent or invalid), read without writing their text.
func colNumKey(d *document, k colKind, i int) (int64, bool) {
	t := d.entries
	dtKey := func(f model.DatetimeField) int64 {
		if ns, ok := t.UnixNano(f, i); ok {
			return ns
		}
		return math.MinInt64
	}
	switch k {
	case colLength:
		if n, ok := t.Length(i); ok {
			return n, true
		}
		return -1, true
	case colLastmod:
		return dtKey(model.FieldLastmod), true
	case colDatetime:
		// The datetime when the entry has one (valid or not), else lastmod,
		// as the column shows.
		if ns, ok := t.UnixNano(model.FieldDatetime, i); ok {
			return ns, true
		}
		if t.Datetime(i).Raw != "" {
			return math.MinInt64, true
		}
		return dtKey(model.FieldLastmod), true
	case colAt:
		return dtKey(model.FieldAt), true
	case colFrom:
		return dtKey(model.FieldFrom), true
	case colUntil:
		return dtKey(model.FieldUntil), true
	case colPart:
		return int64(max(d.partOf(i), 0)), true
	case colLinks:
		return int64(t.LinkCount(i)), true
	}
	return 0, false
}

func isNumericCol(k colKind) bool {
	switch k {
	case colLength, colLastmod, colDatetime, colAt, colFrom, colUntil, colPart, colLinks:
		return true
	}
	return false
}

// formatLength writes a byte count compactly: exact below 10,000 bytes.
func formatLength(n int64) string {
	if n < 10000 {
		return strconv.FormatInt(n, 10)
	}
	return display.Size(n)
}
