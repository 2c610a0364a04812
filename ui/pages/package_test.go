package pages

import (
	"testing"

	"rsx/session"
)

// The package page is tested through the explorer, which opens it from a
// dump entry, the prompt or a click (rsx/ui's page_package_test.go, with its
// golden screens); here, what a row's verdict is drawn with.

// TestRowMark: every row a verification judges is drawn as judged; a bad
// one (a mismatch, a refusal) as an error; an unverifiable one (read, but
// nothing declared to hold it to) apart from the verified.
func TestRowMark(t *testing.T) {
	tests := []struct {
		kind   session.RowKind
		sym    string
		mark   CheckMark
		judged bool
	}{
		{session.RowPending, "·", MarkNone, false},
		{session.RowVerified, "✓", MarkMatch, true},
		{session.RowDeleted, "–", MarkNone, true},
		{session.RowMissing, "?", MarkUnknown, true},
		{session.RowUnlisted, "+", MarkUnknown, true},
		{session.RowMismatch, "✗", MarkMismatch, true},
		{session.RowRefused, "✗", MarkMismatch, true},
		{session.RowUnverifiable, "~", MarkUnknown, true},
	}
	for _, tt := range tests {
		sym, mark, judged := rowMark(tt.kind)
		if sym != tt.sym || mark != tt.mark || judged != tt.judged {
			t.Errorf("kind %d: %q %v %v, want %q %v %v", tt.kind, sym, mark, judged, tt.sym, tt.mark, tt.judged)
		}
		if tt.kind.Bad() != (mark == MarkMismatch) {
			t.Errorf("kind %d: bad %v, but drawn with %v", tt.kind, tt.kind.Bad(), mark)
		}
		r := session.PackageRow{Kind: tt.kind, Summary: "summary"}
		if got := rowShort(r); got != tt.sym+" summary" {
			t.Errorf("kind %d: cell %q", tt.kind, got)
		}
	}
}
