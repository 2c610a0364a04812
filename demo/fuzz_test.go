package demo

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandlerPaths serves arbitrary paths: the router must never panic, and
// must answer with one of the statuses the demo uses.
func FuzzHandlerPaths(f *testing.F) {
	for _, p := range []string{"/", "/dataset1/resourcelist-0001.xml", "/dataset1/res/000001.html", "/dataset1/res/000021",
		"/mirror2/dataset2/res/000008.png", "/dataset1/versions/v1/000005.json", "/timegate/dataset1/res/000005.json",
		"/timemap/dataset1/res/000005.json", "/dataset1/patch/000003.v2.json-patch", "/dataset1/changedump/0001.zip",
		"/dataset1/resourcedump/part-0001-manifest.xml", "/dataset1/changelist/0003.xml.gz", "/dataset1/collections/1.html",
		"/broken/loop-a", "/origin/images/000002.png", "/dataset1/alt/000003.html"} {
		f.Add(p)
	}
	s := New(Options{Resources: 200, ListSize: 50, PackageSize: 20, Broken: true})
	h := s.Handler()
	f.Fuzz(func(t *testing.T, p string) {
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#% \t\r\n") {
			return
		}
		req := httptest.NewRequest(http.MethodGet, "http://demo.test", nil)
		req.URL.Path = p
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusFound, http.StatusNotFound, http.StatusGone, http.StatusServiceUnavailable:
		default:
			t.Errorf("%q: %d", p, rec.Code)
		}
	})
}
