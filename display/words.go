package display

import (
	"errors"
	"fmt"
	"math"
	"regexp/syntax"
	"strings"

	"github.com/dustin/go-humanize"
)

// How rsx writes counts and byte sizes for people, on the command line and
// in the explorer alike: go-humanize's forms, one of each.

// Count writes a count of things with thousands separators, as Plural
// does: "2,008". A number that names one thing rather than counting (a
// line, an entry's position, a run, a status, a seed) is written as it is.
func Count[N ~int | ~int32 | ~int64](n N) string { return humanize.Comma(int64(n)) }

// Plural writes a count and the word for it: "1 entry", "0 entries",
// "1,234 entries".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return humanize.Comma(int64(n)) + " " + many
}

// Size writes a byte count in binary units: "944 B", "1.0 KiB", "1.5 KiB",
// "12 KiB", "256 MiB" (go-humanize's IBytes: one decimal below 10 of a
// unit, none above).
func Size(n int64) string {
	if n < 0 {
		return "-" + humanize.IBytes(uint64(-n))
	}
	return humanize.IBytes(uint64(n))
}

// ParseSize reads a byte count as people write it: "1000", "256MiB",
// "50 MB", "1.5GiB", "1.5k", "1,000". It is go-humanize's ParseBytes (KiB,
// MiB, … and Ki, Mi, … are powers of 1024; kB, MB, … powers of 1000) but for
// a bare k, M, G, T, P or E, which is binary here, as rsx's size flags have
// always read it ("1.5k" is 1536), where go-humanize takes it for SI.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if n := len(t); n >= 2 && strings.IndexByte("kKmMgGtTpPeE", t[n-1]) >= 0 && strings.IndexByte("0123456789. ", t[n-2]) >= 0 {
		t += "i"
	}
	n, err := humanize.ParseBytes(t)
	if err != nil || n > math.MaxInt64 {
		return 0, fmt.Errorf("size %q: want a number of bytes, optionally with a unit such as KiB, MiB, GB", s)
	}
	return int64(n), nil
}

// RegexpProblem says in words why pattern, given to option (--include,
// --exclude), is not a regular expression: what is wrong and where, rather
// than the parser's "error parsing regexp: …".
func RegexpProblem(option, pattern string, err error) error {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Errorf("%s %q is not a regular expression (RE2 syntax): %s at %q", option, pattern, se.Code, se.Expr)
	}
	return fmt.Errorf("%s %q is not a regular expression (RE2 syntax): %v", option, pattern, err)
}
