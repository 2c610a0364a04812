package cli

import (
	"archive/zip"
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rsx/display"
)

// hostile holds what a Source can slip into the text rsx prints: a one-byte
// CSI (U+009B), an OSC (U+009D), a right-to-left override and an isolate.
const hostile = "\u009b2J\u009d0;pwned\u009c\u202egpj.exe\u2066"

// hostileSite serves documents, a dump and an HTML page whose URLs, values
// and names carry hostile characters.
func hostileSite(t *testing.T) *httptest.Server {
	t.Helper()
	var pkg bytes.Buffer
	zw := zip.NewWriter(&pkg)
	w, _ := zw.Create("manifest.xml")
	w.Write([]byte(rsOpen + `<rs:md capability="resourcedump-manifest" at="2024-01-01T00:00:00Z"/>` +
		`<url><loc>http://127.0.0.1/r` + hostile + `</loc><rs:md hash="md5:00000000000000000000000000000000" path="/r` + hostile + `"/></url>` +
		`<url><loc>http://127.0.0.1/s</loc><rs:md path="/s"/></url>` + rsClose))
	w, _ = zw.Create("r" + hostile)
	w.Write([]byte("hello\n"))
	w, _ = zw.Create("s")
	w.Write([]byte("hello\n"))
	w, _ = zw.Create("unlisted" + hostile)
	w.Write([]byte("x"))
	zw.Close()

	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Link", "<"+base+"/cl.xml?"+hostile+">; rel=\"resourcesync\"")
			w.Write([]byte(`<html><head><link rel="resourcesync" href="/x` + hostile + `.xml"></head><body></body></html>`))
		case "/.well-known/resourcesync":
			w.Write([]byte(rsOpen + `<rs:md capability="description"/><rs:ln rel="describedby" href="` + base + `/about` + hostile + `"/>` +
				`<url><loc>` + base + `/cl.xml</loc><rs:md capability="capabilitylist"/></url>` +
				`<url><loc>` + base + `/gone` + hostile + `.xml</loc><rs:md capability="capabilitylist"/></url>` + rsClose))
		case "/cl.xml":
			w.Write([]byte(rsOpen + `<rs:md capability="capabilitylist` + hostile + `"/><rs:ln rel="up" href="` + base + `/.well-known/resourcesync"/>` +
				`<url><loc>` + base + `/rl.xml</loc><rs:md capability="resourcelist"/></url>` +
				`<url><loc>` + base + `/dump.xml</loc><rs:md capability="resourcedump"/></url>` + rsClose))
		case "/rl.xml":
			w.Write([]byte(rsOpen + `<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z` + hostile + `"/><rs:ln rel="up" href="` + base + `/cl.xml"/>` +
				`<url><loc>` + base + `/r` + hostile + `</loc><rs:md type="` + hostile + `" hash="md5:` + hostile + `"/></url>` + rsClose))
		case "/dump.xml":
			w.Write([]byte(rsOpen + `<rs:md capability="resourcedump" at="2013-01-03T09:00:00Z"/><rs:ln rel="up" href="` + base + `/cl.xml"/>` +
				`<url><loc>` + base + `/p.zip</loc><rs:ln rel="contents" href="` + base + `/copy` + hostile + `.xml"/></url>` + rsClose))
		case "/p.zip":
			w.Write(pkg.Bytes())
		case "/bad.xml":
			w.Write([]byte(rsOpen + `<rs:md capability="resourcelist"/><url><loc` + hostile + `>x</loc></url>` + rsClose))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestOutputEscapesWhatSourcesWrote: no command prints a control or
// bidirectional character a Source wrote, in text or in JSON.
func TestOutputEscapesWhatSourcesWrote(t *testing.T) {
	srv := hostileSite(t)
	dest := t.TempDir()
	for _, args := range [][]string{
		{"validate", srv.URL + "/rl.xml", srv.URL + "/cl.xml", srv.URL + "/bad.xml"},
		{"validate", "--json", srv.URL + "/rl.xml", srv.URL + "/bad.xml"},
		{"validate", "--recursive", srv.URL + "/.well-known/resourcesync"},
		{"tree", srv.URL + "/.well-known/resourcesync"},
		{"tree", "--json", srv.URL + "/.well-known/resourcesync"},
		{"discover", srv.URL + "/"},
		{"discover", "--json", srv.URL + "/"},
		{"dump", "--extract", dest, srv.URL + "/dump.xml"},
		{"dump", "--json", "--verify", srv.URL + "/dump.xml"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			_, out, errs := runCmd(t, args...)
			for name, text := range map[string]string{"stdout": out, "stderr": errs} {
				for _, r := range text {
					if display.Unsafe(r) && r != '\n' {
						t.Errorf("%s holds %U:\n%s", name, r, text)
						break
					}
				}
			}
			if !strings.Contains(out+errs, `\u009b2J`) && !strings.Contains(out+errs, `\u009B2J`) {
				t.Errorf("the hostile text is not shown escaped:\n%s\n%s", out, errs)
			}
		})
	}
}
