package display

import "testing"

// TestSize is the one size format. The rows marked "CLI" are where the
// command line's own formatter (fetch.FormatSize) wrote otherwise; the
// explorer already wrote these.
func TestSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{9, "9 B"},
		{944, "944 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"}, // CLI: "1 KiB"
		{1536, "1.5 KiB"},
		{12345, "12 KiB"},    // CLI: "12.1 KiB"
		{1 << 20, "1.0 MiB"}, // CLI: "1 MiB"
		{64 << 10, "64 KiB"},
		{256 << 20, "256 MiB"},
		{-2048, "-2.0 KiB"}, // CLI: "-2 KiB"
		{1<<63 - 1, "8.0 EiB"},
	} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestParseSize is the one size parser. The rows marked "CLI" are where
// the command line's own parser (parseByteSize) read otherwise; those
// marked "humanize" where go-humanize's ParseBytes alone would.
func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // -1: an error
	}{
		{"1000", 1000},
		{" 256MiB ", 256 << 20},
		{"256 MiB", 256 << 20},
		{"50MB", 50e6},
		{"50mb", 50e6},
		{"1.5GiB", 3 << 29},
		{"2KiB", 2048},
		{"2Ki", 2048},
		{"1TB", 1e12},
		{"1PiB", 1 << 50}, // CLI: refused
		{"2k", 2048},      // humanize: 2000
		{"1.5k", 1536},    // humanize: 1500
		{"2 m", 2 << 20},  // humanize: 2,000,000
		{"1G", 1 << 30},   // humanize: 1e9
		{"1,000", 1000},   // CLI: refused
		{"0", 0},
		{"", -1},
		{"MiB", -1},
		{"-5", -1},
		{"5 XB", -1},
		{"abc", -1},
		{"9 EiB", -1}, // past the largest int64
	} {
		got, err := ParseSize(tc.in)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestPlural is the one plural form. The explorer wrote thousands with
// separators; the command line, crawl and the sync engine did not.
func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0 entries"},
		{1, "1 entry"},
		{2, "2 entries"},
		{1234, "1,234 entries"}, // CLI: "1234 entries"
		{-1, "-1 entries"},
	} {
		if got := Plural(tc.n, "entry", "entries"); got != tc.want {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {2008, "2,008"}, {-1234567, "-1,234,567"}} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got, want := Count(2008), Plural(2008, "entry", "entries"); want != got+" entries" {
		t.Errorf("Count and Plural differ: %q, %q", got, want)
	}
}
