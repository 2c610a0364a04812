package config

import (
	"fmt"
	"io"
	"os"

	"rsx/display"
)

// MaxFileBytes bounds the configuration file: far more than any real one
// (a few hundred bytes), and little enough that a wrong file (/dev/zero, a
// log, a disk image) is refused at once instead of read into memory.
const MaxFileBytes = 1 << 20

// MaxDepth bounds how deeply a TOML file the config or the fleet reader
// parses may nest: arrays, inline tables and the parts of dotted keys and
// table headers, counted together. Real files nest three or four levels;
// the TOML library holds every key's whole path, copied at each level, so
// 100,000 nested inline tables (or a dotted key of 100,000 parts) took
// gigabytes and every command died for want of memory.
const MaxDepth = 64

// ReadBounded reads the file at path when it holds at most max bytes, and
// checks, before any TOML library sees it, that it nests no deeper than
// MaxDepth (CheckDepth). what names the file in errors ("config", "--sources").
// It reads max+1 bytes at most, whatever the file is (a device, a pipe).
func ReadBounded(path string, max int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s %s: larger than %s: not a file rsx reads (docs/config.md#limits)", what, path, display.Size(max))
	}
	if err := CheckDepth(b, MaxDepth); err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return b, nil
}

// CheckDepth reports an error when the TOML text b nests deeper than limit:
// each open array or inline table is a level, and so is each part of a
// dotted key after the first, inherited by what the key holds; the keys of
// a table go as deep as its header ([a.b] is two) and nest below it.
// Strings and comments are skipped as TOML reads them; the count is made on
// the text alone, so that it holds for a text TOML would refuse too (and a
// plain list of URLs, a few dots a line, passes).
func CheckDepth(b []byte, limit int) error {
	var (
		stack     []int // the open arrays and inline tables: the key dots before each
		depth     int   // len(stack) plus the dots the stack holds
		dots      int   // the dots of the key (or value) being read at this level
		base      int   // the depth of the last table header, below which its keys go
		header    bool  // the brackets open at the top are a table header
		headerMax int   // the deepest the header being read went
		lineStart = true
		line      = 1
	)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '\n':
			line++
			if len(stack) == 0 {
				dots = 0
			}
		case '#':
			for i+1 < len(b) && b[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			var n int
			i, n = skipString(b, i)
			line += n
		case '[', '{':
			if len(stack) == 0 {
				header = c == '[' && lineStart
				if header {
					base, headerMax = 0, 0
				}
			}
			stack = append(stack, dots)
			depth += 1 + dots
			dots = 0
		case ']', '}':
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				depth -= 1 + top
				dots = top
				if len(stack) == 0 && header {
					base, header, dots = headerMax, false, 0
				}
			}
		case ',':
			dots = 0
		case '.':
			dots++
		}
		if base+depth+dots > limit {
			return fmt.Errorf("line %d: nested deeper than %d levels (arrays, inline tables, dotted keys and table headers together)", line, limit)
		} else if header {
			headerMax = max(headerMax, depth+dots)
		}
		lineStart = c == '\n' || (lineStart && (c == ' ' || c == '\t' || c == '\r'))
	}
	return nil
}

// skipString skips the string starting at b[i] (a quote), as TOML reads
// it: basic "…" with escapes, literal '…', and their multi-line forms,
// whose closing quotes may be followed by up to two more that belong to the
// text. A one-line string ends at the end of its line at the latest (TOML
// refuses a line break in it: the text after is counted all the same); one
// not closed is left to the TOML library to report. It returns the index of
// the string's last byte and the lines it holds.
func skipString(b []byte, i int) (int, int) {
	q := b[i]
	lines := 0
	if i+2 < len(b) && b[i+1] == q && b[i+2] == q {
		for j := i + 3; j < len(b); j++ {
			switch {
			case b[j] == '\n':
				lines++
			case b[j] == '\\' && q == '"':
				if j+1 < len(b) && b[j+1] == '\n' {
					lines++
				}
				j++
			case b[j] == q && j+2 < len(b) && b[j+1] == q && b[j+2] == q:
				k := j + 3
				for k < len(b) && b[k] == q && k < j+5 {
					k++
				}
				return k - 1, lines
			}
		}
		return len(b) - 1, lines
	}
	for j := i + 1; j < len(b); j++ {
		switch {
		case b[j] == '\n':
			return j - 1, 0
		case b[j] == '\\' && q == '"':
			if j+1 < len(b) && b[j+1] == '\n' {
				return j, 0
			}
			j++
		case b[j] == q:
			return j, 0
		}
	}
	return len(b) - 1, 0
}
