package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/fetch"
	"rsx/model"
)

// TestLoadDocumentSizeLimit: a local document larger than Options.MaxBytes
// (the explorer's --max-bytes) ends with the fetch.TooLargeError that every
// command shows (issue 27): the size limit, its value and the flag, not a
// decoder's "not well-formed XML". The entries before the limit are kept.
func TestLoadDocumentSizeLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2024-01-01T00:00:00Z"/>` + "\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "<url><loc>http://127.0.0.1:9/r/%06d</loc></url>\n", i)
	}
	b.WriteString("</urlset>\n")
	file := filepath.Join(t.TempDir(), "big.xml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		opts    Options
		tooLong bool
	}{
		{"over --max-bytes", Options{LocalFiles: true, MaxBytes: 20000, Decoder: model.DecoderOptions{MaxBytes: -1}}, true},
		{"the decoder's limit alone", Options{LocalFiles: true, Decoder: model.DecoderOptions{MaxBytes: 20000}}, false},
		{"under --max-bytes", Options{LocalFiles: true, MaxBytes: 1 << 20, Decoder: model.DecoderOptions{MaxBytes: -1}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := load(t, New(nil, c.opts), file)
			err := r.done[0].Err
			var tl *fetch.TooLargeError
			switch {
			case c.tooLong:
				if !errors.As(err, &tl) || tl.Limit != 20000 || !strings.Contains(err.Error(), "the size limit was reached") ||
					!strings.Contains(err.Error(), "--max-bytes") || len(r.entries) == 0 {
					t.Errorf("%d entries, %v", len(r.entries), err)
				}
			case c.opts.Decoder.MaxBytes > 0:
				// Not from --max-bytes: the decoder's own limit, named as one.
				var sl *model.SizeLimitError
				if !errors.As(err, &sl) || strings.Contains(err.Error(), "well-formed") {
					t.Errorf("%v", err)
				}
			default:
				if err != nil || len(r.entries) != 2000 {
					t.Errorf("%d entries, %v", len(r.entries), err)
				}
			}
		})
	}
}
