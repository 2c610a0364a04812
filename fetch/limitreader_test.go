package fetch

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLimitReader: a body of exactly the limit is read whole; one byte more
// fails with the TooLargeError that names the limit and the flag (issue 27).
func TestLimitReader(t *testing.T) {
	for _, c := range []struct {
		name    string
		size    int
		limit   int64
		tooLong bool
	}{
		{"under", 999, 1000, false},
		{"exactly", 1000, 1000, false},
		{"one over", 1001, 1000, true},
		{"far over", 1 << 20, 1000, true},
		{"no limit", 1 << 20, 0, false},
		{"negative: no limit", 1 << 20, -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := LimitReader(iotest.HalfReader(strings.NewReader(strings.Repeat("x", c.size))), c.limit, "big.xml")
			b, err := io.ReadAll(r)
			var tl *TooLargeError
			if !c.tooLong {
				if err != nil || len(b) != c.size {
					t.Fatalf("read %d bytes, %v", len(b), err)
				}
				return
			}
			if !errors.As(err, &tl) || tl.Limit != c.limit || int64(len(b)) != c.limit {
				t.Fatalf("read %d bytes, %v", len(b), err)
			}
			for _, want := range []string{"big.xml", "size limit was reached", "1000 bytes", "--max-bytes 2.0KiB", "--max-bytes -1"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
			if _, err := r.Read(make([]byte, 10)); !errors.As(err, &tl) {
				t.Errorf("a read after the limit: %v", err)
			}
		})
	}
}
