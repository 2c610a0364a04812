package claims

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"rsx/model"
)

const testBody = "<html><body>hello, resource</body></html>\n"

func md5Hex(s string) string    { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }
func sha256Hex(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

func hashes(t testing.TB, s string) model.HashList {
	t.Helper()
	h, err := model.ParseHashList(s)
	if err != nil {
		t.Fatalf("hash list %q: %v", s, err)
	}
	return h
}

func datetime(t testing.TB, s string) model.Datetime {
	t.Helper()
	d, err := model.ParseDatetime(s)
	if err != nil {
		t.Fatalf("datetime %q: %v", s, err)
	}
	return d
}

// claimsOf declares exactly body, with md5 and sha-256.
func claimsOf(t testing.TB, body string) Claims {
	return Claims{
		Hash:   hashes(t, "md5:"+md5Hex(body)+" sha-256:"+sha256Hex(body)),
		Length: int64(len(body)), LengthRaw: fmt.Sprint(len(body)), LengthOK: true,
		Type:    "text/html",
		Lastmod: datetime(t, "2013-01-02T13:00:00Z"),
	}
}

// marks writes each check as field+mark: ✓ ok, ✗ mismatch, ! warning,
// ? unchecked, – not declared.
func marks(checks []Check) string {
	sym := map[Verdict]string{NotDeclared: "–", OK: "✓", Mismatch: "✗", Warning: "!", Unchecked: "?"}
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "%s%s ", c.Field, sym[c.Verdict])
	}
	return strings.TrimSpace(b.String())
}
