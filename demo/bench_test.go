package demo

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
	"time"
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
	cpu0 := cpuTime()
	for b.Loop() {
		w := &discardRecorder{h: http.Header{}}
		h.ServeHTTP(w, req)
		n = w.n
	}
	cpu := (cpuTime() - cpu0).Seconds()
	b.SetBytes(n)
	b.ReportMetric(float64(50000*b.N)/b.Elapsed().Seconds(), "entries/s")
	// On a shared machine wall-clock figures wander; CPU time does less.
	b.ReportMetric(float64(n)*float64(b.N)/cpu/1e6, "MB/cpu-s")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

// BenchmarkFetchResourceListPart50kLoopback fetches one 50,000-entry part over
// a real loopback connection, without compression, body discarded.
func BenchmarkFetchResourceListPart50kLoopback(b *testing.B) {
	srv, err := Start(b.Context(), "127.0.0.1:0", Options{Resources: 10_000_000, ListSize: 50000})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	var n int64
	cpu0 := cpuTime()
	for b.Loop() {
		resp, err := client.Get(srv.URL + "/dataset1/resourcelist-0100.xml")
		if err != nil {
			b.Fatal(err)
		}
		n, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("%v %d", err, resp.StatusCode)
		}
	}
	cpu := (cpuTime() - cpu0).Seconds()
	b.SetBytes(n)
	b.ReportMetric(float64(50000*b.N)/b.Elapsed().Seconds(), "entries/s")
	b.ReportMetric(float64(n)*float64(b.N)/cpu/1e6, "MB/cpu-s")
}

// BenchmarkServeResourceDumpPart serves one part of the Resource Dump Index of
// the 10,000,000-resource demo: 200 packages of 250 resources, whose lengths
// are computed without generating them (the cache is bypassed with a new Host).
func BenchmarkServeResourceDumpPart(b *testing.B) {
	s := New(Options{Resources: 10_000_000, ListSize: 50000})
	h := s.Handler()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		n++
		req := httptest.NewRequest(http.MethodGet, "http://host"+strconv.Itoa(n)+".test/dataset1/resourcedump-0007.xml", nil)
		h.ServeHTTP(&discardRecorder{h: http.Header{}}, req)
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
}
