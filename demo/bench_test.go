package demo

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// discardRecorder is a ResponseWriter that counts and drops the body.
type discardRecorder struct {
	h http.Header
	n int64
}

func (d *discardRecorder) Header() http.Header         { return d.h }
func (d *discardRecorder) WriteHeader(int)             {}
func (d *discardRecorder) Write(p []byte) (int, error) { d.n += int64(len(p)); return len(p), nil }

// BenchmarkServeResourceListPart50k serves one 50,000-entry part of the
// 10,000,000-resource demo, as the crawler gets it (no compression).
func BenchmarkServeResourceListPart50k(b *testing.B) {
	s := New(Options{Resources: 10_000_000, ListSize: 50000})
	h := s.Handler()
	req := httptest.NewRequest(http.MethodGet, testBase+"/dataset1/resourcelist-0100.xml", nil)
	var n int64
	b.ReportAllocs()
	for b.Loop() {
		w := &discardRecorder{h: http.Header{}}
		h.ServeHTTP(w, req)
		n = w.n
	}
	b.SetBytes(n)
	b.ReportMetric(float64(50000*b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkServeResourceAfterLongHistory serves one resource once the change
// log holds about 45,000 changes.
func BenchmarkServeResourceAfterLongHistory(b *testing.B) {
	s := New(Options{})
	s.Advance(10000)
	h := s.Handler()
	req := httptest.NewRequest(http.MethodGet, testBase+"/dataset1/res/000011.html", nil)
	for b.Loop() {
		h.ServeHTTP(&discardRecorder{h: http.Header{}}, req)
	}
}

// BenchmarkServeChangeDumpAfterLongHistory serves the Change Dump of 1,000 packages.
func BenchmarkServeChangeDumpAfterLongHistory(b *testing.B) {
	s := New(Options{})
	s.Advance(1000 - historySteps)
	h := s.Handler()
	req := httptest.NewRequest(http.MethodGet, testBase+"/dataset1/changedump.xml", nil)
	for b.Loop() {
		h.ServeHTTP(&discardRecorder{h: http.Header{}}, req)
	}
}
