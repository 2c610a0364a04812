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

// fetch.Open and model's IsHTTPURL/IsLocal/LocalPath divide targets alike:
// fetch cannot import model, so each has its own few lines, and this test
// holds them together. Every local target names a file that does not exist;
// a target model calls neither must not be fetched.
func TestTargetKindsAgree(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.xml")
	for _, target := range []string{
		"http://127.0.0.1:9/x.xml", "HTTPS://e.com/x", "hTtP://e.com/",
		"http:e.com", "https:/e.com", "ftp://e.com/x", "mailto:a@e.com", "urn:isbn:1", "javascript:x",
		missing, "file://" + missing, "FILE://" + missing, "file:" + missing, "file:/" + missing,
		"no-such-file.xml", "./a:b.xml", `C:\no\such.xml`, "-", "1http://e.com", "x+y.z:abc",
	} {
		g := &recordingGetter{}
		_, err := fetch.Open(context.Background(), g, target)
		var pe *fs.PathError
		fetched, opened := len(g.asked) == 1, errors.As(err, &pe)
		switch {
		case model.IsHTTPURL(target) && !fetched,
			model.IsLocal(target) && (!opened || pe.Path != model.LocalPath(target)),
			!model.IsHTTPURL(target) && fetched:
			t.Errorf("%q: fetch.Open fetched it %v, opened a file %v (%v); model.IsHTTPURL %v, IsLocal %v, LocalPath %q",
				target, fetched, opened, err, model.IsHTTPURL(target), model.IsLocal(target), model.LocalPath(target))
		}
	}
}

// A URL written without its scheme gets the URL meant from every command,
// not a Go parse error ("first path segment in URL cannot contain colon")
// nor a bare "not an http or https URL".
func TestNoSchemeSuggestsTheURL(t *testing.T) {
	dest := t.TempDir()
	for _, target := range []string{"example.org/cap.xml", "localhost:8080/dataset1/capabilitylist.xml", "127.0.0.1:8080/dataset1/capabilitylist.xml"} {
		meant := fetch.SchemeFor(target)
		for _, args := range [][]string{
			{"discover", target}, {"tree", target}, {"validate", target}, {"dump", target},
			{"sync", "--dest", dest, target}, {"audit", target}, {"audit", "--dest", dest, target}, {"watch", target}, {target},
		} {
			code, _, errs := runCmd(t, args...)
			if code != 2 || !strings.Contains(errs, "give the scheme: "+meant) || strings.Contains(errs, "first path segment") {
				t.Errorf("rsx %s: exit %d: %s", strings.Join(args, " "), code, errs)
			}
		}
	}
}
