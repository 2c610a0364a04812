package model

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// The parallel path must give exactly what the sequential Decoder gives: these
// tests decode documents both ways, with tiny blocks so that there are many cuts,
// and compare everything a caller can see.

// parOutcome is everything a caller of a Decoder can observe.
type parOutcome struct {
	header    Header // as returned by Header (shallow copy)
	headerErr string
	entries   []Entry
	bytes     []int64 // BytesRead after each entry
	lines     []int   // Line after each entry
	err       string  // the error that ended Next ("EOF" at the end), with its type
	errLine   int     // the SyntaxError's line
	errMsg    string  // the SyntaxError's message without its line
	final     Header  // the Header once Next has ended
	finalRead int64
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%T: %v", err, err)
}

func parDecode(t testing.TB, r io.Reader, opts DecoderOptions) parOutcome {
	t.Helper()
	d := NewDecoder(r, opts)
	defer d.Close()
	var out parOutcome
	h, err := d.Header()
	out.header = *h
	out.headerErr = errString(err)
	if err == nil {
		var e Entry
		for n := 0; ; n++ {
			if n > 1<<22 {
				t.Fatal("Next does not end")
			}
			if !opts.Reuse {
				e = Entry{}
			}
			err = d.Next(&e)
			if err != nil {
				break
			}
			if opts.Reuse {
				// A deep copy: what the Decoder rewrites later must not
				// change what it returned (nothing else may).
				out.entries = append(out.entries, deepClone(e))
			} else {
				out.entries = append(out.entries, e)
			}
			out.bytes = append(out.bytes, d.BytesRead())
			out.lines = append(out.lines, d.Line())
		}
		if err2 := d.Next(new(Entry)); errString(err2) != errString(err) {
			t.Fatalf("Next after %v: %v", err, err2)
		}
	}
	out.err = errString(err)
	var se *SyntaxError
	if errors.As(err, &se) {
		out.errLine, out.errMsg = se.Line, se.Msg
	}
	out.final = *h
	out.finalRead = d.BytesRead()
	return out
}

// parCompare decodes data sequentially and in parallel with each block size and
// reader shape, and fails on any difference.
func parCompare(t *testing.T, name string, data []byte, opts DecoderOptions, blocks ...int) {
	t.Helper()
	if len(blocks) == 0 {
		blocks = []int{256, 4 << 10}
	}
	readers := []struct {
		name string
		mk   func([]byte) io.Reader
	}{
		{"plain", func(b []byte) io.Reader { return gunzipSource(bytes.NewReader(b)) }},
		{"chunks", func(b []byte) io.Reader { return iotest.HalfReader(gunzipSource(&parChunkReader{data: b, n: 173})) }},
		{"memory", func(b []byte) io.Reader { // decoded in place (decode_mem.go)
			if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
				return gunzipSource(bytes.NewReader(b))
			}
			return &memSource{b: b, chunk: 173}
		}},
	}
	for _, rd := range readers {
		seqOpts := opts
		seqOpts.Parallel, seqOpts.Reuse = 0, false
		want := parDecode(t, rd.mk(data), seqOpts)
		seqOpts.Reuse = true
		if msg := parDiff(want, parDecode(t, rd.mk(data), seqOpts)); msg != "" {
			t.Fatalf("%s (%s reader, sequential, reusing entries): %s", name, rd.name, msg)
		}
		for _, bs := range blocks {
			for _, workers := range []int{2, 3} {
				po := opts
				po.Parallel, po.blockSize, po.Reuse = workers, bs, workers == 3
				got := parDecode(t, rd.mk(data), po)
				if msg := parDiff(want, got); msg != "" {
					t.Fatalf("%s (%s reader, block %d, %d workers, reuse %v): %s", name, rd.name, bs, workers, po.Reuse, msg)
				}
			}
		}
	}
}

func parDiff(want, got parOutcome) string {
	switch {
	case want.headerErr != got.headerErr:
		return fmt.Sprintf("Header error %s, want %s", got.headerErr, want.headerErr)
	case !reflect.DeepEqual(want.header, got.header):
		return fmt.Sprintf("Header\n got %+v\nwant %+v", got.header, want.header)
	case parReadErr(want.err) && (want.errMsg != got.errMsg || !parReadErr(got.err)):
		return fmt.Sprintf("read error %s, want %s", got.err, want.err)
	case !parReadErr(want.err) && (want.err != got.err || want.errLine != got.errLine):
		return fmt.Sprintf("error %s (line %d), want %s (line %d) after %d/%d entries", got.err, got.errLine, want.err, want.errLine, len(got.entries), len(want.entries))
	case len(want.entries) != len(got.entries):
		return fmt.Sprintf("%d entries, want %d", len(got.entries), len(want.entries))
	}
	for i := range want.entries {
		if !reflect.DeepEqual(want.entries[i], got.entries[i]) {
			return fmt.Sprintf("entry %d\n got %+v\nwant %+v", i, got.entries[i], want.entries[i])
		}
		if want.bytes[i] != got.bytes[i] || want.lines[i] != got.lines[i] {
			return fmt.Sprintf("after entry %d: BytesRead %d Line %d, want %d %d", i, got.bytes[i], got.lines[i], want.bytes[i], want.lines[i])
		}
	}
	switch {
	case !reflect.DeepEqual(want.final, got.final):
		return fmt.Sprintf("final Header\n got %+v\nwant %+v", got.final, want.final)
	case want.finalRead != got.finalRead && want.err == errString(io.EOF):
		// After an error, BytesRead is where the scanner stood, which depends
		// on the sizes of the source's reads in the sequential Decoder too.
		return fmt.Sprintf("final BytesRead %d, want %d", got.finalRead, want.finalRead)
	}
	return ""
}

// parReadErr tells errors of the source (truncated or corrupt gzip data, a
// failed read): their line is where the sequential Decoder stood when it issued
// the read that failed, which depends on its window, so lines are not compared.
func parReadErr(err string) bool {
	for _, s := range []string{": input is truncated: ", ": corrupt gzip data: ", "read XML document: "} {
		if strings.Contains(err, s) {
			return true
		}
	}
	return false
}

// parChunkReader returns at most n bytes per Read.
type parChunkReader struct {
	data []byte
	n    int
}

func (r *parChunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if len(p) > r.n {
		p = p[:r.n]
	}
	k := copy(p, r.data)
	r.data = r.data[k:]
	return k, nil
}

func parGzip(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParallelConformance(t *testing.T) {
	n := 0
	err := filepath.WalkDir(chkConformanceDir, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || filepath.Ext(path) != ".xml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		parCompare(t, path, data, DecoderOptions{}, 64, 256)
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("%s: %d documents, %v", chkConformanceDir, n, err)
	}
	t.Logf("%d documents", n)
}

func TestParallelBenchDocuments(t *testing.T) {
	for _, n := range []int{0, 1, 2, 10, 100, 1000, 5000} {
		data := benchResourceList(t, n)
		parCompare(t, fmt.Sprintf("%d entries", n), data, DecoderOptions{}, 256, 4<<10, 64<<10)
		parCompare(t, fmt.Sprintf("%d entries, gzip", n), parGzip(t, data), DecoderOptions{}, 4<<10)
	}
}

// TestParallelBlocksUsed: the blocks of a clean document are all accepted.
func TestParallelBlocksUsed(t *testing.T) {
	data := benchResourceList(t, 1000)
	for _, bs := range []int{256, 4096} {
		d := NewDecoder(iotest.HalfReader(bytes.NewReader(data)), DecoderOptions{Parallel: 2, blockSize: bs})
		var e Entry
		n := 0
		for d.Next(&e) == nil {
			n++
		}
		if min := len(data)/bs/2 - 2; n != 1000 || d.par.accepted < min {
			t.Errorf("block %d: %d entries, %d blocks accepted, want at least %d", bs, n, d.par.accepted, min)
		}
	}
}

// TestParallelLarge decodes a document much larger than the default block.
func TestParallelLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	data := benchResourceList(t, 20000)
	seq := parDecode(t, bytes.NewReader(data), DecoderOptions{})
	par := parDecode(t, bytes.NewReader(data), DecoderOptions{Parallel: 2})
	if msg := parDiff(seq, par); msg != "" {
		t.Fatal(msg)
	}
	if len(par.entries) != 20000 {
		t.Fatalf("%d entries", len(par.entries))
	}
}

// parEntries builds a document from a root start tag, entries and a tail.
func parDoc(root string, entry func(i int) string, n int, tail string) []byte {
	var b strings.Builder
	b.WriteString(root)
	for i := 0; i < n; i++ {
		b.WriteString(entry(i))
	}
	b.WriteString(tail)
	return []byte(b.String())
}

const parRoot = `<?xml version="1.0" encoding="UTF-8"?>
<urlset ` + decSM + ` ` + decRS + `>
  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`

func TestParallelTrickyDocuments(t *testing.T) {
	plain := func(i int) string {
		return fmt.Sprintf("<url><loc>http://e.com/%d</loc><lastmod>2013-01-02T13:00:00Z</lastmod></url>\n", i)
	}
	docs := map[string][]byte{
		"comments": parDoc(parRoot, func(i int) string {
			if i%7 == 3 {
				return fmt.Sprintf("<!-- </url> %d </url>\n -->\n", i) + plain(i)
			}
			return plain(i)
		}, 400, "</urlset>\n"),
		"comment in entry": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url><loc>http://e.com/%d</loc><!-- </url>\n --></url>\n", i)
		}, 400, "</urlset>\n"),
		"cdata": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url><loc><![CDATA[http://e.com/</url>%d]]></loc><x:y xmlns:x=\"urn:x\"><![CDATA[</url>\n]]></x:y></url>\n", i)
		}, 400, "</urlset>\n"),
		"pi": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<?pi </url> %d?>\n<url><loc>http://e.com/%d</loc><?x </url>\n?></url>\n", i, i)
		}, 400, "</urlset>\n"),
		"attribute": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url><loc>http://e.com/%d</loc><rs:md type=\"text/html\"\n   length=\"%d\"\n   x:a=\"&lt;/url>\n</url>\" xmlns:x=\"urn:x\"/></url>\n", i, i)
		}, 400, "</urlset>\n"),
		"prefixed": parDoc(`<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns="http://www.openarchives.org/rs/terms/"><md capability="resourcelist"/>`, func(i int) string {
			return fmt.Sprintf("<sm:url>\n<sm:loc>http://e.com/%d</sm:loc><md hash=\"md5:1584abdf8ebdc9802ac0c6a7402c03b6\"/></sm:url>\n<url><loc>not an entry</loc></url>\n", i)
		}, 300, "</sm:urlset>"),
		"mixed prefixes": parDoc(`<urlset `+decSM+` xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9">`, func(i int) string {
			if i%3 == 0 {
				return fmt.Sprintf("<s:url><s:loc>http://e.com/%d</s:loc></s:url>\n", i)
			}
			return plain(i)
		}, 300, "</urlset>"),
		"links after entries": parDoc(parRoot, plain, 300, `<rs:ln rel="up" href="http://e.com/caps.xml"/><rs:md capability="changelist"/><x:z xmlns:x="urn:x">t</x:z></urlset><!-- end -->`),
		"document-level between entries": parDoc(parRoot, func(i int) string {
			if i == 150 {
				return `<rs:ln rel="up" href="http://e.com/caps.xml"/>` + plain(i)
			}
			return plain(i)
		}, 300, "</urlset>"),
		"legacy": parDoc(`<urlset `+decSM+` xmlns:rs="http://www.openarchives.org/rs/">`, func(i int) string {
			if i%50 == 49 {
				return fmt.Sprintf("<url><loc>http://e.com/%d</loc><rs:md modified=\"2013\"/><rs:size>1</rs:size></url>\n", i)
			}
			return plain(i)
		}, 300, "</urlset>"),
		"sitemapindex": parDoc(`<sitemapindex `+decSM+` `+decRS+`><rs:md capability="resourcelist"/>`, func(i int) string {
			return fmt.Sprintf("<sitemap><loc>http://e.com/%d.xml</loc><rs:md at=\"2013-01-02T13:00:00Z\"/></sitemap>\n", i)
		}, 300, "</sitemapindex>"),
		"url in sitemapindex": parDoc(`<sitemapindex `+decSM+`>`, func(i int) string {
			return fmt.Sprintf("<sitemap><loc>http://e.com/%d.xml</loc></sitemap><url><loc>x</loc></url>\n", i)
		}, 300, "</sitemapindex>"),
		"nested url": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url><loc>http://e.com/%d</loc><x:w xmlns:x=\"urn:x\"><url>in</url></x:w><url/></url>\n", i)
		}, 300, "</urlset>"),
		"text between entries": parDoc(parRoot, func(i int) string {
			return plain(i) + "stray text &amp; </url \n"
		}, 300, "</urlset>"),
		"crlf": []byte(strings.ReplaceAll(string(parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url>\n<loc>\nhttp://e.com/%d\n</loc>\n<changefreq>daily</changefreq>\n</url>\n", i)
		}, 300, "</urlset>\n")), "\n", "\r\n")),
		"no root end":    parDoc(parRoot, plain, 300, ""),
		"epilog garbage": parDoc(parRoot, plain, 300, "</urlset>garbage"),
		"second root":    parDoc(parRoot, plain, 300, "</urlset><urlset/>"),
		"root ends early": parDoc(parRoot, func(i int) string {
			if i == 100 {
				return "</urlset>"
			}
			return plain(i)
		}, 300, "</urlset>"),
		"deep": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url><loc>http://e.com/%d</loc><x:a xmlns:x=\"urn:x\"><x:b><x:c><x:d/></x:c></x:b></x:a></url>\n", i)
		}, 300, "</urlset>"),
		"entities": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url><loc>http://e.com/?a=%d&amp;b=&#x41;&#66;</loc></url>\n", i)
		}, 300, "</urlset>"),
		"big entries": parDoc(parRoot, func(i int) string {
			return fmt.Sprintf("<url><loc>http://e.com/%d</loc><x:y xmlns:x=\"urn:x\">%s</x:y></url>\n", i, strings.Repeat("long text ", 30*(i%10)))
		}, 200, "</urlset>"),
		"self-closing entries": parDoc(parRoot, func(i int) string {
			return "<url/>\n<url></url>\n"
		}, 300, "</urlset>"),
	}
	latin := strings.ReplaceAll(string(parDoc(parRoot, func(i int) string {
		return fmt.Sprintf("<url><loc>http://e.com/caf\xe9/%d</loc></url>\n", i)
	}, 300, "</urlset>")), `encoding="UTF-8"`, `encoding="ISO-8859-1"`)
	docs["latin-1"] = []byte(latin)
	docs["utf-16"] = parUTF16(parDoc(parRoot, plain, 200, "</urlset>"))
	docs["gzip"] = parGzip(t, docs["comments"])
	for name, data := range docs {
		parCompare(t, name, data, DecoderOptions{}, 64, 256, 4<<10)
	}
}

func parUTF16(b []byte) []byte {
	s := strings.Replace(string(b), `encoding="UTF-8"`, `encoding="UTF-16"`, 1)
	out := []byte{0xFF, 0xFE}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

// TestParallelMalformed breaks a document in many ways.
func TestParallelMalformed(t *testing.T) {
	data := benchResourceList(t, 600)
	// Truncated at every 997th byte.
	for k := 997; k < len(data); k += 997 {
		parCompare(t, fmt.Sprintf("truncated at %d", k), data[:k], DecoderOptions{}, 256, 4<<10)
	}
	edit := func(at int, old, repl string) []byte {
		i := at + bytes.Index(data[at:], []byte(old))
		return bytes.Join([][]byte{data[:i:i], []byte(repl), data[i+len(old):]}, nil)
	}
	cases := map[string][]byte{
		"mismatched tag in block 3":  edit(3*256+10, "</loc>", "</lox>"),
		"mismatched tag in block 30": edit(30*4096+10, "</lastmod>", "</loc>"),
		"unclosed entry":             edit(20000, "</url>", ""),
		"unclosed entry, late":       edit(150000, "</url>", ""),
		"extra end tag":              edit(20000, "</url>", "</url></url>"),
		"bad entity":                 edit(40000, "</loc>", "&nope;</loc>"),
		"lt in attribute":            edit(50000, `length="`, `length="<`),
		"control character":          edit(50000, `</lastmod>`, "\x01</lastmod>"),
		"bad utf-8":                  edit(60000, `</loc>`, "\xff\xfe</loc>"),
		"undeclared prefix":          edit(10000, `<url>`, `<url><q:x/>`),
		"unquoted attribute":         edit(10000, `length="`, `length=1 x="`),
		"repeated attribute":         edit(10000, `length="`, `type="a" length="`),
		"comment never closed":       edit(30000, `<url>`, `<!-- <url>`),
		"cdata never closed":         edit(30000, `<loc>`, `<loc><![CDATA[`),
		"doctype late":               edit(30000, `<url>`, `<!DOCTYPE x><url>`),
		"invalid markup":             edit(30000, `<url>`, `<!x><url>`),
		"nul":                        edit(30000, `<url>`, "\x00<url>"),
	}
	for k := 5000; k < len(data); k += 7919 {
		cases[fmt.Sprintf("garbage at %d", k)] = bytes.Join([][]byte{data[:k:k], []byte("<<&\x00]]>"), data[k:]}, nil)
		cases[fmt.Sprintf("cut out at %d", k)] = bytes.Join([][]byte{data[:k:k], data[k+37:]}, nil)
	}
	for name, d := range cases {
		parCompare(t, name, d, DecoderOptions{}, 256, 4<<10)
	}
	// Compressed, then corrupted or truncated.
	z := parGzip(t, data)
	for _, k := range []int{len(z) / 3, len(z) / 2, len(z) - 5} {
		parCompare(t, fmt.Sprintf("gzip truncated at %d", k), z[:k], DecoderOptions{}, 256, 4<<10)
		bad := bytes.Clone(z)
		bad[k] ^= 0x55
		parCompare(t, fmt.Sprintf("gzip corrupt at %d", k), bad, DecoderOptions{}, 256, 4<<10)
	}
}

func TestParallelReadError(t *testing.T) {
	data := benchResourceList(t, 300)
	boom := errors.New("connection reset")
	for _, k := range []int{100, 5000, 40000, len(data) - 3, len(data)} {
		mk := func() io.Reader { return &decErrReader{data: data[:k], err: boom} }
		want := parDecode(t, mk(), DecoderOptions{})
		for _, bs := range []int{256, 4096} {
			got := parDecode(t, mk(), DecoderOptions{Parallel: 2, blockSize: bs})
			if msg := parDiff(want, got); msg != "" {
				t.Fatalf("error after %d bytes, block %d: %s", k, bs, msg)
			}
		}
	}
}

func TestParallelLimits(t *testing.T) {
	data := benchResourceList(t, 300)
	for _, opts := range []DecoderOptions{{MaxTokenBytes: 100}, {MaxTokenBytes: 300}, {MaxDepth: 2}, {MaxDepth: 3}} {
		parCompare(t, fmt.Sprintf("%+v", opts), data, opts, 256, 4<<10)
	}
	long := parDoc(parRoot, func(i int) string {
		return fmt.Sprintf("<url><loc>http://e.com/%d%s</loc></url>\n", i, strings.Repeat("x", i*3))
	}, 300, "</urlset>")
	parCompare(t, "long loc", long, DecoderOptions{MaxTokenBytes: 500}, 256, 4<<10)
	// MaxBytes: the limit holds and the error is the same; its line depends on
	// how the source's reads fall, in the sequential Decoder too, so it is not
	// compared.
	for _, max := range []int64{1000, 10000, 50000, int64(len(data)) - 1, int64(len(data))} {
		want := parDecode(t, bytes.NewReader(data), DecoderOptions{MaxBytes: max})
		got := parDecode(t, bytes.NewReader(data), DecoderOptions{MaxBytes: max, Parallel: 2, blockSize: 256})
		if want.errMsg != got.errMsg || want.errMsg == "" && want.err != got.err || got.finalRead > max {
			t.Errorf("MaxBytes %d: %s after %d bytes, want %s", max, got.err, got.finalRead, want.err)
		}
		// Which entries come before the error depends on the reads too: the
		// sequential Decoder stops at the read that passes the limit, with
		// entries of its window undecoded. Neither path returns an entry
		// that does not end within the limit.
		complete := bytes.Count(data[:min(max, int64(len(data)))], []byte("</url>"))
		if n := len(got.entries); n > complete || len(want.entries) > complete || n+100 < len(want.entries) {
			t.Errorf("MaxBytes %d: %d entries, sequential %d, %d end within the limit", max, n, len(want.entries), complete)
		}
		for i := range got.entries {
			if i < len(want.entries) && !reflect.DeepEqual(got.entries[i], want.entries[i]) {
				t.Fatalf("MaxBytes %d: entry %d differs", max, i)
			}
		}
	}
}

// TestParallelSmallNoGoroutines: a document of less than two blocks is decoded
// without goroutines.
func TestParallelSmallNoGoroutines(t *testing.T) {
	data := benchResourceList(t, 100)
	d := NewDecoder(bytes.NewReader(data), DecoderOptions{Parallel: 4})
	n := 0
	var e Entry
	for d.Next(&e) == nil {
		n++
	}
	if n != 100 || d.par.jobs != nil || d.par.free != nil || len(d.par.queue) != 0 {
		t.Fatalf("%d entries; parallel state %+v", n, d.par)
	}
}

// TestParallelClose: a caller that stops early and closes leaks no goroutine.
func TestParallelClose(t *testing.T) {
	data := benchResourceList(t, 5000)
	before := runtime.NumGoroutine()
	for _, stopAt := range []int{0, 1, 2, 10, 500, 4999} {
		d := NewDecoder(bytes.NewReader(data), DecoderOptions{Parallel: 3, blockSize: 4096})
		var e Entry
		for i := 0; i < stopAt; i++ {
			if err := d.Next(&e); err != nil {
				t.Fatal(err)
			}
		}
		d.Close()
		d.Close()
		if err := d.Next(&e); stopAt > 1 && !errors.Is(err, errClosed) {
			t.Errorf("Next after Close: %v", err)
		}
	}
	// Ended by EOF or an error without Close: the goroutines are gone too.
	for _, doc := range [][]byte{data, data[:len(data)/2]} {
		d := NewDecoder(bytes.NewReader(doc), DecoderOptions{Parallel: 3, blockSize: 4096})
		var e Entry
		for d.Next(&e) == nil {
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines, %d before", n, before)
	}
}

// TestParallelValidate: Validate (parallel) reports what sequential decoding does.
func TestParallelValidate(t *testing.T) {
	data := benchResourceList(t, 3000)
	broken := bytes.Replace(data, []byte("</loc>"), []byte("</lox>"), 1000)
	broken = broken[:len(broken)-len(broken)/3]
	for _, doc := range [][]byte{data, broken, data[:len(data)-7]} {
		want := validate(bytes.NewReader(doc), CheckOptions{}, DecoderOptions{})
		for _, o := range []DecoderOptions{{Parallel: 2, blockSize: 4096}, {Reuse: true}, {Parallel: 2, blockSize: 4096, Reuse: true}} {
			got := validate(bytes.NewReader(doc), CheckOptions{}, o)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%+v: reports differ:\n got %+v\nwant %+v", o, got, want)
			}
		}
	}
}

func FuzzParallelDecode(f *testing.F) {
	for _, s := range decFuzzSeeds {
		f.Add([]byte(s), uint8(40))
	}
	f.Add(benchResourceList(f, 20), uint8(200))
	f.Add(parDoc(parRoot, func(i int) string { return fastCommon(i) + fastVariants["md over lines"] }, 10, "</urlset>"), uint8(101))
	f.Add(parDoc(parRoot, func(i int) string {
		return fmt.Sprintf("<!-- </url> --><url><loc>%d</loc><![CDATA[</url>]]></url>", i)
	}, 20, "<rs:ln href='x'/></urlset>"), uint8(30))
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		opts := DecoderOptions{MaxDepth: 64}
		want := parDecode(t, &parChunkReader{data: data, n: 61}, opts)
		opts.Parallel, opts.blockSize, opts.Reuse = 2, 16+int(block), block%2 == 1
		got := parDecode(t, &parChunkReader{data: data, n: 61}, opts)
		if msg := parDiff(want, got); msg != "" {
			t.Fatal(msg)
		}
	})
}

// deepClone copies v with every string, slice and pointer it reaches, so that
// the copy shares no memory with v.
func deepClone[T any](v T) T {
	src := reflect.ValueOf(&v).Elem()
	dst := reflect.New(src.Type()).Elem()
	deepCopyValue(dst, src)
	return dst.Interface().(T)
}

func deepCopyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.String:
		dst.SetString(strings.Clone(src.String()))
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			deepCopyValue(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Struct:
		if src.Type() == reflect.TypeOf(time.Time{}) {
			dst.Set(src) // its location pointer is shared, immutable data
			return
		}
		for i := 0; i < src.NumField(); i++ {
			deepCopyValue(dst.Field(i), src.Field(i))
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		deepCopyValue(p.Elem(), src.Elem())
		dst.Set(p)
	default:
		dst.Set(src)
	}
}
