package session

import (
	"strings"
	"testing"

	"rsx/claims"
	"rsx/dump"
	"rsx/model"
)

func entry(loc, path string, change model.Change, links ...model.Link) model.Entry {
	e := model.Entry{Loc: loc, MD: model.Metadata{Change: change}, Links: links}
	if path != "" {
		e.MD.Path, e.MD.HasPath = path, true
	}
	return e
}

func TestPackageRows(t *testing.T) {
	m := &model.Document{Entries: []model.Entry{
		entry("http://x/a", "/r/a", ""),
		entry("http://x/b", "/r/b", ""),
		entry("http://x/c", "/r/c", ""),
		entry("http://x/d", "/r/d", model.ChangeDeleted),
		entry("http://x/e", "/r/e", "", model.Link{Rel: "patch", Path: "/r/e.patch", HasPath: true}),
		entry("http://x/f", "/../f", ""),
		entry("http://x/g", "/r/g", ""),
	}}
	res := &dump.Result{
		Mismatched: []dump.Mismatch{
			{Path: "/r/b", Loc: "http://x/b", What: "length", Expected: "5", Actual: "6"},
			{Path: "/r/b", Loc: "http://x/b", What: "md5", Expected: "aa", Actual: "bb"},
			{Path: "/r/e.patch", Loc: "http://x/e", What: "sha-256", Expected: "cc", Actual: "dd"},
		},
		Missing:  []string{"/r/c", "/r/g"},
		Deleted:  []string{"http://x/d"},
		Unlisted: []string{"extra.txt", "../evil"},
		Refused: []dump.Refusal{
			{Path: "/../f", Loc: "http://x/f", Reason: `path has a ".." segment`},
			{Path: "../evil", Reason: "unsafe member name"},
			{Path: "/r/g", Loc: "http://x/g", Reason: "symlink"}, // refused wins over missing
			{Reason: "too many members"},
		},
	}
	rows := PackageRows(m, res)
	var got []string
	for _, r := range rows {
		got = append(got, r.Summary)
	}
	want := []string{
		"verified", "length, md5 differ", "missing member", "deleted", "sha-256 differ", `refused: path has a ".." segment`, "refused: symlink",
		"unlisted member", "refused: unsafe member name", "refused: too many members",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	kinds := []RowKind{RowVerified, RowMismatch, RowMissing, RowDeleted, RowMismatch, RowRefused, RowRefused, RowUnlisted, RowRefused, RowRefused}
	for i, k := range kinds {
		if i < len(rows) && rows[i].Kind != k {
			t.Errorf("row %d kind %d, want %d", i, rows[i].Kind, k)
		}
	}
	if rows[8].Member != "../evil" || rows[9].Problem != "too many members" || rows[9].Entry != -1 {
		t.Errorf("extra rows %+v %+v", rows[8], rows[9])
	}
	if !strings.Contains(rows[1].Detail, "length declared 5, the member has 6; md5 declared aa") {
		t.Errorf("detail %q", rows[1].Detail)
	}
	if MismatchedBitstreams(res) != 2 {
		t.Errorf("mismatched bitstreams %d", MismatchedBitstreams(res))
	}

	pending := PackageRows(m, nil)
	if len(pending) != len(m.Entries) || pending[0].Kind != RowPending || pending[0].Kind.Bad() {
		t.Errorf("before verification: %+v", pending)
	}
	if PackageRows(nil, res) != nil {
		t.Error("rows without a manifest")
	}
}

func TestPackageClaims(t *testing.T) {
	hl, _ := model.ParseHashList("md5:00112233445566778899aabbccddeeff sha3-256:ab")
	md := model.Metadata{Type: "application/zip", Length: 10, LengthRaw: "10", LengthOK: true, Hash: hl}
	marks := func(cs []claims.Check) string {
		var b []string
		for _, c := range cs {
			b = append(b, c.Field+":"+c.Verdict.String()+":"+c.Actual)
		}
		return strings.Join(b, " ")
	}
	open := PackageFetched{Package: &dump.Package{}, Complete: true}
	tests := []struct {
		name string
		md   model.Metadata
		f    PackageFetched
		want string
	}{
		{"all good", md, open, "type:ok: length:ok: md5:ok: sha3-256:unchecked:"},
		{"length and md5 differ", md, PackageFetched{Package: &dump.Package{}, Complete: true, Mismatches: []dump.Mismatch{
			{What: "length", Actual: "11"}, {What: "MD5", Actual: "ffff"}}}, "type:ok: length:mismatch:11 md5:mismatch:ffff sha3-256:unchecked:"},
		{"not opened", md, PackageFetched{Complete: true}, "type:unchecked: length:ok: md5:ok: sha3-256:unchecked:"},
		{"not a zip type", model.Metadata{Type: "Application/X-Tar; q=1"}, open, "type:mismatch:"},
		{"invalid length", model.Metadata{LengthRaw: "many"}, open, "length:unchecked:"},
		{"nothing declared", model.Metadata{}, open, ""},
	}
	for _, tt := range tests {
		if got := marks(PackageClaims(tt.md, tt.f)); got != tt.want {
			t.Errorf("%s: %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestPackageRowsUnverifiable: a bitstream whose entry declares neither a
// length nor a hash is not "verified": there was nothing to verify.
func TestPackageRowsUnverifiable(t *testing.T) {
	m := &model.Document{Entries: []model.Entry{entry("http://x/a", "/r/a", ""), entry("http://x/u", "/r/u", "")}}
	rows := PackageRows(m, &dump.Result{Verified: 1, Unverifiable: []string{"/r/u"}})
	if rows[0].Kind != RowVerified || rows[1].Kind != RowUnverifiable || rows[1].Summary != "unverifiable" || rows[1].Kind.Bad() {
		t.Fatalf("%+v", rows)
	}
}
