package ui

import (
	"context"
	"io"
	"strings"
	"testing"

	"rsx/fetch"
)

// limitGetter serves the fixtures, but cuts the body of cut with the
// TooLargeError that fetch gives past --max-bytes.
type limitGetter struct {
	*exGetter
	cut string
}

type failAfter struct {
	r   io.Reader
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func (g *limitGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	resp, err := g.exGetter.Get(ctx, url)
	if err != nil || !strings.HasSuffix(url, g.cut) {
		return resp, err
	}
	body, _ := io.ReadAll(resp.Body)
	half := strings.SplitAfterN(string(body), "</url>", 3)
	resp.Body = io.NopCloser(&failAfter{strings.NewReader(half[0] + half[1]), &fetch.TooLargeError{URL: url, Limit: 1000}})
	return resp, nil
}

// TestStatusSizeLimit: a document cut short by --max-bytes says so in the
// status bar, with the limit and the flag, in its short form too (issue
// 27: the explorer said only "incomplete").
func TestStatusSizeLimit(t *testing.T) {
	for _, c := range []struct {
		w    int
		want string
	}{
		{240, "incomplete: the size limit was reached: larger than 1000 B, the limit of --max-bytes; raise it, e.g. --max-bytes 2.0KiB"},
		{80, "incomplete: size limit 1000 B (--max-bytes)"},
	} {
		g := &limitGetter{exGetter: newExGetter(), cut: "/dataset1/resourcelist-1.xml"}
		_, d := exAppWith(t, g, "/dataset1/resourcelist-1.xml", c.w, 30)
		lines := strings.Split(d.screen(), "\n")
		if status := lines[len(lines)-2]; !strings.Contains(status, c.want) {
			t.Errorf("%d columns: status bar %q, want %q", c.w, status, c.want)
		}
	}
}
