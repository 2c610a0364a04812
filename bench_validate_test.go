package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"rsx/model"
)

// The whole-process speed of rsx validate against a plain encoding/xml streaming
// loop (testdata/baseline) over the same 50,000-entry Resource List, measured
// alternately in the same run. See BENCHMARKS.md, "Validate (whole process)":
//
//	RSX_SPEED=1 go test -run TestValidateSpeed -v .
//	go test -run '^$' -bench ValidateWholeProcess .

// writeSpeedResourceList writes a realistic Resource List of n entries (about
// 270 bytes each: loc, lastmod, md5 and sha-256 hashes, length, type), the same
// shape as model's benchmark document.
func writeSpeedResourceList(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	base := time.Date(2013, 1, 2, 13, 0, 0, 0, time.UTC)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcelist" at="%s"/>
`, model.FormatDatetime(base.Add(time.Duration(n)*37*time.Second)))
	types := [...]string{"text/html", "application/pdf", "image/png", "application/xml", "text/plain"}
	exts := [...]string{"html", "pdf", "png", "xml", "txt"}
	var seed [8]byte
	var buf []byte
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(seed[:], uint64(i))
		m := md5.Sum(seed[:])
		s := sha256.Sum256(seed[:])
		k := i % len(types)
		buf = append(buf[:0], "<url>\n    <loc>http://example.com/dataset1/res/"...)
		buf = strconv.AppendInt(buf, int64(i/1000), 10)
		buf = append(buf, "/item-"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, '.')
		buf = append(buf, exts[k]...)
		buf = append(buf, "</loc>\n    <lastmod>"...)
		buf = model.AppendDatetime(buf, base.Add(time.Duration(i)*37*time.Second))
		buf = append(buf, "</lastmod>\n    <rs:md hash=\"md5:"...)
		buf = hex.AppendEncode(buf, m[:])
		buf = append(buf, " sha-256:"...)
		buf = hex.AppendEncode(buf, s[:])
		buf = append(buf, "\" length=\""...)
		buf = strconv.AppendInt(buf, int64(1000+(i*7919)%900000), 10)
		buf = append(buf, "\" type=\""...)
		buf = append(buf, types[k]...)
		buf = append(buf, "\"/>\n</url>\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	bw.WriteString("</urlset>\n")
	return bw.Flush()
}

type speedResult struct {
	rsx, baseline       time.Duration // medians of wall-clock time
	rsxCPU, baselineCPU time.Duration // medians of user+system CPU time
	startup             time.Duration // median wall time of rsx validate on a one-entry document
	runs                int
	bytes               int64
}

func (r speedResult) ratio() float64    { return float64(r.rsx) / float64(r.baseline) }
func (r speedResult) cpuRatio() float64 { return float64(r.rsxCPU) / float64(r.baselineCPU) }

// measureValidateSpeed builds both programs, writes the document and times
// `rsx validate FILE` and `baseline FILE` alternately, runs times each.
func measureValidateSpeed(tb testing.TB, runs int) speedResult {
	tb.Helper()
	dir := tb.TempDir()
	rsx := filepath.Join(dir, "rsx")
	base := filepath.Join(dir, "baseline")
	for _, b := range [][]string{{"-o", rsx, "."}, {"-o", base, "./testdata/baseline"}} {
		cmd := exec.Command("go", append([]string{"build"}, b...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("go build %v: %v\n%s", b, err, out)
		}
	}
	doc := filepath.Join(dir, "resourcelist.xml")
	f, err := os.Create(doc)
	if err != nil {
		tb.Fatal(err)
	}
	if err := writeSpeedResourceList(f, 50000); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(doc)
	// A one-entry document: what the process costs before any validating.
	tiny := filepath.Join(dir, "tiny.xml")
	var tb2 bytes.Buffer
	writeSpeedResourceList(&tb2, 1)
	if err := os.WriteFile(tiny, tb2.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}

	timeRun := func(name string, args ...string) (wall, cpu time.Duration) {
		cmd := exec.Command(name, args...)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		t0 := time.Now()
		err := cmd.Run()
		wall = time.Since(t0)
		if err != nil {
			tb.Fatalf("%s %v: %v", name, args, err)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	// One untimed run of each warms the page cache.
	timeRun(rsx, "validate", doc)
	timeRun(base, doc)
	var a, b, ac, bc, su []time.Duration
	for i := 0; i < runs; i++ {
		w, c := timeRun(rsx, "validate", tiny)
		_ = c
		su = append(su, w)
		w, c = timeRun(rsx, "validate", doc)
		a, ac = append(a, w), append(ac, c)
		w, c = timeRun(base, doc)
		b, bc = append(b, w), append(bc, c)
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	return speedResult{rsx: median(a), baseline: median(b), rsxCPU: median(ac), baselineCPU: median(bc), startup: median(su), runs: runs, bytes: st.Size()}
}

func TestValidateSpeed(t *testing.T) {
	if os.Getenv("RSX_SPEED") == "" {
		t.Skip("set RSX_SPEED=1 to measure rsx validate against the encoding/xml baseline (builds both programs)")
	}
	r := measureValidateSpeed(t, 9)
	t.Logf("50,000 entries, %d bytes, %d runs each: rsx validate median %v (CPU %v), encoding/xml baseline median %v (CPU %v): ratio %.3f (CPU %.3f); rsx validate of a one-entry document %v",
		r.bytes, r.runs, r.rsx.Round(time.Millisecond), r.rsxCPU.Round(time.Millisecond), r.baseline.Round(time.Millisecond), r.baselineCPU.Round(time.Millisecond), r.ratio(), r.cpuRatio(), r.startup.Round(time.Millisecond))
	if r.ratio() > 0.2 {
		t.Errorf("rsx validate takes %.3f× the baseline; the requirement is at most 0.2×", r.ratio())
	}
}

func BenchmarkValidateWholeProcess(b *testing.B) {
	r := measureValidateSpeed(b, 9)
	b.ReportMetric(float64(r.rsx.Microseconds())/1000, "rsx-ms")
	b.ReportMetric(float64(r.baseline.Microseconds())/1000, "baseline-ms")
	b.ReportMetric(r.ratio(), "ratio")
	b.ReportMetric(r.cpuRatio(), "cpu-ratio")
	b.ReportMetric(float64(r.startup.Microseconds())/1000, "startup-ms")
	for i := 0; i < b.N; i++ {
	}
}

// TestWriteSpeedDocuments writes the whole-process benchmark documents to the
// folder named by RSX_SPEED_OUT (scripts/bench-validate runs it): the
// 50,000-entry Resource List plain and gzipped, and a one-entry document.
func TestWriteSpeedDocuments(t *testing.T) {
	dir := os.Getenv("RSX_SPEED_OUT")
	if dir == "" {
		t.Skip("set RSX_SPEED_OUT=DIR to write the benchmark documents there")
	}
	var plain bytes.Buffer
	if err := writeSpeedResourceList(&plain, 50000); err != nil {
		t.Fatal(err)
	}
	var tiny bytes.Buffer
	if err := writeSpeedResourceList(&tiny, 1); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"resourcelist.xml": plain.Bytes(), "resourcelist.xml.gz": gz.Bytes(), "tiny.xml": tiny.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
