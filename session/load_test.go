package session

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/claims"
	"rsx/dump"
	"rsx/fetch"
)

// mapGetter serves documents from memory.
type mapGetter map[string]string

func (g mapGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, ok := g[url]
	if !ok {
		ex := &fetch.Exchange{Method: "GET", URL: url, Status: 404, Done: true}
		return &fetch.Response{URL: url, Status: 404, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("nope")), Exchange: ex},
			&fetch.StatusError{URL: url, Status: 404}
	}
	ex := &fetch.Exchange{Method: "GET", URL: url, FinalURL: url, Status: 200, Done: true,
		ResponseHeader: http.Header{"Content-Type": {"text/plain"}}}
	return &fetch.Response{URL: url, Status: 200, Header: http.Header{"Content-Length": {fmt.Sprint(len(body))}},
		Body: io.NopCloser(strings.NewReader(body)), Exchange: ex}, nil
}

const sdXML = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="description"/>
<url><loc>capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url>
</urlset>
`

const capXML = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="sd.xml"/>
<rs:md capability="capabilitylist"/>
<url><loc>http://example.com/rl.xml</loc><rs:md capability="resourcelist"/></url>
</urlset>
`

func listXML(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>http://example.com/res/%d</loc></url>\n", i)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// Local files: a document, its ancestors through relative up links, its
// raw text gzip-compressed, and the errors of a directory and a missing
// file.
func TestLocalFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("sd.xml", []byte(sdXML))
	write("capabilitylist.xml", []byte(capXML))
	list := write("rl.xml", []byte(listXML(50)))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(listXML(3)))
	zw.Close()
	gzPath := write("rl.xml.gz", gz.Bytes())

	s := NewWithGetter(mapGetter{}, Options{BatchSize: 7, MaxRaw: 100, LocalFiles: true})
	r := load(t, s, list)
	res := r.done[0]
	if res.Err != nil || len(r.entries) != 50 || res.Exchange != nil || res.FinalURL != list || r.total != int64(len(listXML(50))) {
		t.Fatalf("local list: %v, %d entries, final %s, total %d", res.Err, len(r.entries), res.FinalURL, r.total)
	}
	if res.Raw != nil {
		t.Errorf("a document over MaxRaw was kept (%d bytes)", len(res.Raw))
	}
	for _, n := range r.batches {
		if n > 7 {
			t.Errorf("batch of %d", n)
		}
	}
	crumbs, err := s.Ancestors(context.Background(), list, r.header)
	if err != nil || len(crumbs) != 2 || crumbs[0].URL != filepath.Join(dir, "sd.xml") || crumbs[1].Title() != "Capability List" {
		t.Errorf("ancestors: %v %+v", err, crumbs)
	}

	rc, size, err := s.OpenRaw(context.Background(), gzPath)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(rc)
	rc.Close()
	if string(text) != listXML(3) || size != -1 {
		t.Errorf("gzip raw: size %d, %.80q", size, text)
	}
	// A broken gzip stream fails when read (fetch.Open defers the error of
	// its header to the first Read).
	if rc, _, err := s.OpenRaw(context.Background(), write("bad.gz", []byte{0x1f, 0x8b, 0, 0})); err != nil {
		t.Errorf("broken gzip: open: %v", err)
	} else {
		_, err := io.ReadAll(rc)
		rc.Close()
		if err == nil || !strings.Contains(err.Error(), "gzip") {
			t.Errorf("broken gzip: read: %v", err)
		}
	}

	if r := load(t, s, dir); r.done[0].Err == nil || !strings.Contains(r.done[0].Err.Error(), "is a directory") {
		t.Errorf("directory: %v", r.done[0].Err)
	}
	if r := load(t, s, filepath.Join(dir, "absent.xml")); !errors.Is(r.done[0].Err, os.ErrNotExist) {
		t.Errorf("missing file: %v", r.done[0].Err)
	}
}

// Documents from a Getter: the exchange of a failed fetch is kept, and a
// document that is not XML is reported with the error.
func TestGetterDocuments(t *testing.T) {
	g := mapGetter{"http://example.com/rl.xml": listXML(5), "http://example.com/broken.xml": listXML(5)[:300]}
	s := NewWithGetter(g, Options{})
	r := load(t, s, "http://example.com/rl.xml")
	if r.done[0].Err != nil || len(r.entries) != 5 || string(r.done[0].Raw) != listXML(5) || r.done[0].Exchange == nil {
		t.Errorf("list: %+v", r.done[0])
	}
	r = load(t, s, "http://example.com/absent.xml")
	if res := r.done[0]; res.Err == nil || res.Exchange == nil || res.Exchange.Status != 404 || len(r.started) != 0 {
		t.Errorf("404: %+v", res)
	}
	r = load(t, s, "http://example.com/broken.xml")
	if res := r.done[0]; res.Err == nil || res.Errors == 0 {
		t.Errorf("broken: err %v, %d errors", res.Err, res.Errors)
	}
	if s.Exchanges() != nil {
		t.Error("a getter session has no exchange log")
	}
}

// A session over a Getter checks resources too, and holds a body to its
// limit.
func TestGetterCheckResource(t *testing.T) {
	body := strings.Repeat("y", 100)
	g := mapGetter{"http://example.com/r": body}
	s := NewWithGetter(g, Options{Claims: claims.Options{Margin: 10}})
	c := claims.Claims{Length: 100, LengthRaw: "100", LengthOK: true}
	r := s.CheckResource(context.Background(), claims.Target{URL: "http://example.com/r", Claims: c}, nil)
	if r.Verdict() != claims.OK || string(r.Preview) != body {
		t.Errorf("ok: %v %+v", r.Verdict(), r.Checks)
	}
	c.Length, c.LengthRaw = 20, "20"
	r = s.CheckResource(context.Background(), claims.Target{URL: "http://example.com/r", Claims: c}, nil)
	if !r.Received.Truncated || r.Received.Bytes != 30 || r.Verdict() != claims.Mismatch {
		t.Errorf("long: truncated %v after %d bytes, %v", r.Received.Truncated, r.Received.Bytes, r.Verdict())
	}
	r = s.CheckResource(context.Background(), claims.Target{URL: "http://example.com/gone", Claims: claims.Claims{Gone: true}}, nil)
	if r.Verdict() != claims.OK {
		t.Errorf("gone: %v %+v", r.Verdict(), r.Checks)
	}
}

// TestRemoteDocumentsDoNotReadLocalFiles: a document from the network can
// point at file: URLs; they are shown, never followed. A session reads
// local files only once the user opened one, and even then never because a
// remote document links to them: not as a document, not as an ancestor, not
// as a package or its manifest copy.
func TestRemoteDocumentsDoNotReadLocalFiles(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "sd.xml")
	if err := os.WriteFile(secret, []byte(sdXML), 0o600); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "p.zip")
	os.WriteFile(pkg, zipOf(t, manifestXML("resourcedump-manifest", "")), 0o600)
	remote := "http://example.com/rl.xml"
	g := mapGetter{remote: strings.Replace(listXML(2), `<rs:ln rel="up" href="capabilitylist.xml"/>`,
		`<rs:ln rel="up" href="file://`+secret+`"/>`, 1)}

	for _, userOpenedLocal := range []bool{false, true} {
		t.Run(fmt.Sprint("user opened a local file: ", userOpenedLocal), func(t *testing.T) {
			s := NewWithGetter(g, Options{LocalFiles: userOpenedLocal})
			r := load(t, s, remote)
			if r.done[0].Err != nil {
				t.Fatal(r.done[0].Err)
			}
			if crumbs, err := s.Ancestors(context.Background(), remote, r.header); len(crumbs) != 0 {
				t.Errorf("the file: up link of a remote document was followed: %+v %v", crumbs, err)
			}
			ref := dump.PackageRef{URL: "file://" + pkg, Dump: "http://example.com/dump.xml"}
			l := s.OpenPackage(ref, dump.Options{TempDir: t.TempDir()})
			if f := l.Download(nil); !errors.Is(f.Err, ErrLocalFile) || f.Package != nil {
				t.Errorf("a remote dump's file: package was read: %+v", f)
			}
			l.Close()
			if userOpenedLocal {
				return
			}
			if err := s.FollowLink(remote, "file://"+secret); !errors.Is(err, ErrLocalFile) {
				t.Errorf("FollowLink from a remote document to a local file: %v", err)
			}
			if err := s.FollowLink(remote, "http://example.com/cl.xml"); err != nil {
				t.Errorf("FollowLink to http: %v", err)
			}
			if err := s.FollowLink(secret, "javascript:alert(1)"); err == nil {
				t.Errorf("FollowLink to javascript: allowed")
			}
			// Nothing local at all until the user opens a local file.
			if r := load(t, s, "file://"+secret); !errors.Is(r.done[0].Err, ErrLocalFile) || len(r.entries) > 0 {
				t.Errorf("a local document read: %v", r.done[0].Err)
			}
			if _, _, err := s.OpenRaw(context.Background(), secret); !errors.Is(err, ErrLocalFile) {
				t.Errorf("a local file's text read: %v", err)
			}
			s.UserOpened(secret)
			if r := load(t, s, secret); r.done[0].Err != nil || len(r.entries) != 1 {
				t.Errorf("the file the user opened: %v", r.done[0].Err)
			}
		})
	}
}
