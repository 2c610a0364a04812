package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fleet")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadPlainList(t *testing.T) {
	f, err := Read(writeFile(t, "# my Sources\nhttp://a.example/cap.xml\n\n  https://b.example/cap.xml  \n"))
	if err != nil || len(f.Sources) != 2 || f.Sources[1].URL != "https://b.example/cap.xml" || f.HoldBound != DefaultHold {
		t.Fatalf("plain list: %+v %v", f, err)
	}
	// A line that starts with http:// or https:// is a Source whatever it
	// holds: an = in its query does not make the file TOML (it did:
	// "toml: line 1: expected '.' or '='").
	f, err = Read(writeFile(t, "https://example.org/cap.xml?set=b\nHTTPS://example.org/cap.xml?set=c&x=[1]\n"))
	if err != nil || len(f.Sources) != 2 || f.Sources[0].URL != "https://example.org/cap.xml?set=b" {
		t.Fatalf("a query string: %+v %v", f, err)
	}
	// A plain line that is no http(s) URL is named.
	if _, err := Read(writeFile(t, "ftp://x.example/cap.xml\n")); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Errorf("ftp: %v", err)
	}
	// URLs mixed with TOML: which line is which.
	if _, err := Read(writeFile(t, "https://a.example/c?x=1\ndest = \"/d\"\n")); err == nil || !strings.Contains(err.Error(), "line 1 is a URL") {
		t.Errorf("mixed: %v", err)
	}
}

func TestReadTOML(t *testing.T) {
	f, err := Read(writeFile(t, `hold = "10m"
rate = 1.5
[[source]]
url = "http://a.example/c?set=a"
include = ["x"]
[[source]]
url = "http://b.example/c"
disabled = true
`))
	if err != nil || len(f.Sources) != 1 || f.HoldBound != 10*time.Minute || *f.Rate != 1.5 {
		t.Fatalf("%+v %v", f, err)
	}
	if f, err := Read(writeFile(t, "hold = \"0\"\n[[source]]\nurl = \"http://a.example/c\"\n")); err != nil || f.HoldBound != 0 {
		t.Errorf("hold 0: %+v %v", f, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"[[source]]\nurl = \"ftp://x/\"\n", "not an http(s) URL"},
		{"[[source]]\nurl = \"http://x/\"\ncolour = \"red\"\n", "unknown settings source.colour"},
		{"[[source]]\nurl = \"http://x/\"\nmode = \"fast\"\n", "mode \"fast\""},
		{"[[source]]\nurl = \"http://x/\"\ninclude = [\"(\"]\n", "not a regular expression"},
		{"[[source]]\nurl = \"http://x/\"\n[[source]]\nurl = \"http://x/\"\n", "listed twice"},
		{"dest = \"/d\"\n", "no [[source]] table"},
		{"# nothing\n", "no Source in it"},
		{"[[source]]\nurl = \"http://x/\"\nevery = \"5s\"\n", "a minute or more"},
		{"[[source\n", "toml: line 2"},
		{"hold = \"soon\"\n[[source]]\nurl = \"http://x/\"\n", "hold = \"soon\""},
		{"[[source]]\nurl = \"http://x/\"\nrate = -1.0\n", "rate = -1"},
		{"[[source]]\nurl = \"http://x/\"\nconcurrency = 0\n", "concurrency = 0"},
		// Duplicates are found once the default destination applies: the
		// default written out, and dest = "", are one DEST (they were
		// not).
		{"dest = \"/archive\"\n[[source]]\nurl = \"http://x/\"\ndest = \"\"\n[[source]]\nurl = \"http://x/\"\ndest = \"/archive/\"\n", "listed twice"},
	} {
		if _, err := Read(writeFile(t, tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
}
