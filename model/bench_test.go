package model

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// writeBenchResourceList writes a deterministic, realistic Resource List of n
// entries (about 270 bytes each): loc, lastmod and an rs:md with an md5 and a
// sha-256 digest, a length and a media type.
func writeBenchResourceList(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	base := time.Date(2013, 1, 2, 13, 0, 0, 0, time.UTC)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcelist" at="%s"/>
`, FormatDatetime(base.Add(time.Duration(n)*37*time.Second)))
	types := [...]string{"text/html", "application/pdf", "image/png", "application/xml", "text/plain"}
	exts := [...]string{"html", "pdf", "png", "xml", "txt"}
	var seed [8]byte
	var buf []byte
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(seed[:], uint64(i))
		m := md5.Sum(seed[:])
		s := sha256.Sum256(seed[:])
		k := i % len(types)
		buf = buf[:0]
		buf = append(buf, "<url>\n  <loc>http://example.com/res/"...)
		buf = strconv.AppendInt(buf, int64(i/1000), 10)
		buf = append(buf, "/item-"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, '.')
		buf = append(buf, exts[k]...)
		buf = append(buf, "</loc>\n  <lastmod>"...)
		buf = AppendDatetime(buf, base.Add(time.Duration(i)*37*time.Second))
		buf = append(buf, "</lastmod>\n  <rs:md hash=\"md5:"...)
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

func benchResourceList(tb testing.TB, n int) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := writeBenchResourceList(&b, n); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func decodeAll(data []byte) (int, error) {
	d := NewDecoder(bytes.NewReader(data), DecoderOptions{})
	if _, err := d.Header(); err != nil {
		return 0, err
	}
	var e Entry
	n := 0
	for {
		err := d.Next(&e)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// reportPerEntry reports entries/s and allocations per entry for a benchmark loop
// that handled entries entries per iteration.
func reportPerEntry(b *testing.B, entries int, start time.Time, before *runtime.MemStats) {
	elapsed := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	total := float64(entries) * float64(b.N)
	b.ReportMetric(total/elapsed.Seconds(), "entries/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/entry")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/total, "B/entry")
}

func BenchmarkDecodeResourceList50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	b.SetBytes(int64(len(data)))
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		n, err := decodeAll(data)
		if err != nil || n != 50000 {
			b.Fatalf("decoded %d entries: %v", n, err)
		}
	}
	b.StopTimer()
	reportPerEntry(b, 50000, start, &before)
	b.ReportMetric(float64(len(data))/50000, "xml-bytes/entry")
}

// benchXMLURL is what the encoding/xml baseline decodes each <url> into.
type benchXMLURL struct {
	Loc     string `xml:"loc"`
	Lastmod string `xml:"lastmod"`
	MD      struct {
		Hash   string `xml:"hash,attr"`
		Length string `xml:"length,attr"`
		Type   string `xml:"type,attr"`
	} `xml:"http://www.openarchives.org/rs/terms/ md"`
}

// xmlBaseline is the plain encoding/xml streaming loop the decoder is measured
// against: Token() until each <url>, then DecodeElement into a struct.
func xmlBaseline(data []byte) (int, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "url" {
			var u benchXMLURL
			if err := dec.DecodeElement(&u, &se); err != nil {
				return n, err
			}
			n++
		}
	}
}

func BenchmarkEncodingXMLBaseline50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	b.SetBytes(int64(len(data)))
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		n, err := xmlBaseline(data)
		if err != nil || n != 50000 {
			b.Fatalf("decoded %d entries: %v", n, err)
		}
	}
	b.StopTimer()
	reportPerEntry(b, 50000, start, &before)
}

// BenchmarkDecodeVsEncodingXML50k runs the decoder and the encoding/xml baseline
// alternately over the same bytes and reports the ratio of their best wall times
// and of their total process CPU times (garbage collection included), which hold
// up better than two separate benchmarks on a busy machine.
func BenchmarkDecodeVsEncodingXML50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	best := func(cur, d time.Duration) time.Duration {
		if cur == 0 || d < cur {
			return d
		}
		return cur
	}
	var dec, ref, decCPU, refCPU time.Duration
	for i := 0; i < b.N; i++ {
		runtime.GC()
		start, cpu := time.Now(), processCPUTime()
		if n, err := decodeAll(data); err != nil || n != 50000 {
			b.Fatalf("decoder: %d entries: %v", n, err)
		}
		runtime.GC() // the garbage made is part of the cost
		dec = best(dec, time.Since(start))
		decCPU += processCPUTime() - cpu
		start, cpu = time.Now(), processCPUTime()
		if n, err := xmlBaseline(data); err != nil || n != 50000 {
			b.Fatalf("encoding/xml: %d entries: %v", n, err)
		}
		runtime.GC()
		ref = best(ref, time.Since(start))
		refCPU += processCPUTime() - cpu
	}
	b.ReportMetric(float64(dec)/float64(ref), "time-ratio")
	if refCPU > 0 {
		b.ReportMetric(float64(decCPU)/float64(refCPU), "cpu-ratio")
	}
	b.ReportMetric(float64(len(data))/dec.Seconds()/1e6, "decoder-MB/s")
	b.ReportMetric(float64(len(data))/ref.Seconds()/1e6, "encoding/xml-MB/s")
}
