package fleet

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// plainList tells whether data is a plain list of URLs: no line that is
// not blank, a comment or a URL looks like TOML (a table, a key = value).
// line is the first URL line, when some line does.
func plainList(data []byte) (plain bool, line int) {
	plain = true
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case isURLLine(l):
			if line == 0 {
				line = i + 1
			}
		case strings.HasPrefix(l, "[") || strings.Contains(l, "="):
			plain = false
		}
	}
	if plain {
		line = 0
	}
	return plain, line
}

// isURLLine tells whether a line of the file is an http(s) URL.
func isURLLine(l string) bool {
	lower := strings.ToLower(l)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}

// plainSources are the Sources of a plain list.
func plainSources(data []byte) []Source {
	var out []Source
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, Source{URL: line})
	}
	return out
}

// checkSettings checks the file's own settings: hold, rate, concurrency.
func (f *File) checkSettings(path string) error {
	f.HoldBound = DefaultHold
	if f.Hold != "" {
		d, err := time.ParseDuration(f.Hold)
		if f.Hold == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return fmt.Errorf("--sources %s: hold = %q: a duration such as 3m or 10m (\"0\": no bound)", path, f.Hold)
		}
		f.HoldBound = d
	}
	if err := checkLimits(&f.Source); err != nil {
		return fmt.Errorf("--sources %s: %v", path, err)
	}
	return nil
}

// checkLimits checks a Source's (or the file's) rate and concurrency.
func checkLimits(s *Source) error {
	if s.Rate != nil && *s.Rate < 0 {
		return fmt.Errorf("rate = %g: requests a second, 0 or more (0: no limit)", *s.Rate)
	}
	if s.Concurrency != nil && *s.Concurrency < 1 {
		return fmt.Errorf("concurrency = %d: requests in flight, 1 or more", *s.Concurrency)
	}
	return nil
}

// DestKey is the form of a destination by which two Sources are found to
// share it: a folder's path cleaned (/archive/ and /archive are one).
func DestKey(dest string) string {
	if dest == "" || strings.Contains(dest, "://") || strings.HasSuffix(dest, ":") {
		return dest
	}
	return filepath.Clean(dest)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
