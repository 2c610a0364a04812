package cli

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"rsx/fetch"
	"rsx/model"
)

// recordingGetter notes that it was asked, and answers nothing.
type recordingGetter struct{ asked []string }

func (g *recordingGetter) Get(_ context.Context, url string) (*fetch.Response, error) {
	g.asked = append(g.asked, url)
	return nil, errors.New("recording getter: no network here")
}

// fetch.Open and model's IsHTTPURL/IsLocal divide targets alike: fetch
// cannot import model, so each has its own few lines, and this test holds
// them together. Every local target names a file that does not exist.
func TestTargetKindsAgree(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.xml")
	for _, target := range []string{
		"http://127.0.0.1:9/x.xml", "HTTPS://e.com/x", "hTtP://e.com/",
		"http:e.com", "https:/e.com", "ftp://e.com/x", "mailto:a@e.com", "urn:isbn:1", "javascript:x",
		missing, "file://" + missing, "FILE://" + missing, "file:" + missing,
		"no-such-file.xml", "./a:b.xml", `C:\no\such.xml`, "-", "1http://e.com", "x+y.z:abc",
	} {
		g := &recordingGetter{}
		_, err := fetch.Open(context.Background(), g, target)
		var pe *fs.PathError
		fetchHTTP := len(g.asked) == 1
		fetchLocal := errors.As(err, &pe)
		fetchNeither := err != nil && strings.Contains(err.Error(), "unsupported scheme")
		if fetchHTTP != model.IsHTTPURL(target) || fetchLocal != model.IsLocal(target) ||
			fetchNeither != (!model.IsHTTPURL(target) && !model.IsLocal(target)) {
			t.Errorf("%q: fetch.Open fetched %v, opened a file %v, refused %v (%v); model.IsHTTPURL %v, IsLocal %v",
				target, fetchHTTP, fetchLocal, fetchNeither, err, model.IsHTTPURL(target), model.IsLocal(target))
		}
		if fetchLocal && pe.Path != model.LocalPath(target) {
			t.Errorf("%q: fetch.Open opened %q, model.LocalPath says %q", target, pe.Path, model.LocalPath(target))
		}
	}
}
