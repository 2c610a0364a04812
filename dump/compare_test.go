package dump

import (
	"strings"
	"testing"

	"rsx/model"
)

func parseManifest(t *testing.T, b []byte) *model.Document {
	t.Helper()
	d, err := model.Parse(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCompareManifests(t *testing.T) {
	d1, d2 := []byte(res1), []byte(res2)
	e1 := entry("http://example.com/res1", "/resources/res1", d1)
	e2 := entry("http://example.com/res2", "/resources/res2", d2)
	base := parseManifest(t, manifest(e1, e2))
	tests := []struct {
		name string
		copy []byte
		want []string // substrings, one per difference
	}{
		{"equal", manifest(e1, e2), nil},
		{"order and spelling do not matter", manifest(
			strings.Replace(strings.Replace(e2, "md5:", "MD5:", 1), `length="`, `length="0`, 1), e1), nil},
		{"hex case does not matter", manifest(e1, strings.ToUpper(e2[:0])+strings.Replace(e2, md5hex(d2), strings.ToUpper(md5hex(d2)), 1)), nil},
		{"length differs", manifest(e1, strings.Replace(e2, `length="`, `length="1`, 1)), []string{"length 33 in the package, 133 in the copy"}},
		{"path differs", manifest(e1, strings.Replace(e2, `path="/resources/res2"`, `path="/srv/www/files/res2"`, 1)),
			[]string{"http://example.com/res2: path /resources/res2 in the package, /srv/www/files/res2 in the copy"}},
		{"path and length differ", manifest(e1, strings.Replace(strings.Replace(e2, `path="/resources/res2"`, `path="res2"`, 1), `length="`, `length="1`, 1)),
			[]string{"path /resources/res2 in the package, res2 in the copy; length 33 in the package, 133 in the copy"}},
		{"entry missing", manifest(e1), []string{"only in the package's manifest: http://example.com/res2"}},
		{"entry added", manifest(e1, e2, entry("http://example.com/res3", "/r3", d1)), []string{"only in the contents copy: http://example.com/res3"}},
		{"duplicate counts", manifest(e1, e2, e2), []string{"only in the contents copy: http://example.com/res2"}},
		{"capability", changeManifest(e1, e2), []string{`capability "resourcedump-manifest" in the package, "changedump-manifest" in the copy`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompareManifests(base, parseManifest(t, tt.copy))
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("difference %d: %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
