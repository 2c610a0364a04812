package model

import (
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"testing"
)

// failingSource fails its first Read with err, as a source that undoes gzip
// itself (fetch.Open) does when the gzip header is corrupt.
type failingSource struct{ err error }

func (s failingSource) Read([]byte) (int, error) { return 0, s.err }

func TestDecodeSourceErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		syntax bool
	}{
		{"corrupt gzip header", gzip.ErrHeader, true},
		{"corrupt gzip header, wrapped", fmt.Errorf("decompress body: %w", gzip.ErrHeader), true},
		{"gzip checksum", gzip.ErrChecksum, true},
		{"corrupt deflate data", fmt.Errorf("read: %w", flate.CorruptInputError(120)), true},
		{"cut short", io.ErrUnexpectedEOF, true},
		{"a read error", fmt.Errorf("read body: %w", io.ErrClosedPipe), false},
	} {
		_, err := Parse(failingSource{tc.err})
		if err == nil || decIsSyntaxError(err) != tc.syntax {
			t.Errorf("%s: %v; want a syntax error: %v", tc.name, err, tc.syntax)
		}
	}
}
