package model

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Validate's memory does not depend on a document's shape: each document below
// is within the specification's 50 MB limit and is checked in less than
// validateMemoryBound of heap. Each is validated in a child process (this test
// binary run again), with GOGC=1000 as rsx validate sets it, so that the
// heap the runtime obtained (MemStats.HeapSys, which never shrinks) is the
// peak of that one validation.

const validateMemoryBound = 256 << 20

// hostileShapes writes documents of about 44–48 MB whose shape once made
// validating them take gigabytes.
var hostileShapes = map[string]func(w io.Writer){
	// One entry with 800,000 links.
	"one entry, 800,000 links": func(w io.Writer) {
		io.WriteString(w, memHead+`<url><loc>http://example.com/r</loc>`)
		for i := 0; i < 800000; i++ {
			fmt.Fprintf(w, `<rs:ln rel="alternate" href="http://example.com/a/%07d"/>`+"\n", i)
		}
		io.WriteString(w, "</url></urlset>\n")
	},
	// 50,000 entries with 12 links each.
	"50,000 entries, 12 links each": func(w io.Writer) {
		io.WriteString(w, memHead)
		for i := 0; i < 50000; i++ {
			fmt.Fprintf(w, "<url><loc>http://example.com/r/%d</loc>\n", i)
			for k := 0; k < 12; k++ {
				fmt.Fprintf(w, `<rs:ln rel="alternate" href="http://example.com/r/%d/%d" type="text/html"/>`+"\n", i, k)
			}
			io.WriteString(w, "</url>\n")
		}
		io.WriteString(w, "</urlset>\n")
	},
	// 700,000 document-level links, each with a relation that is reported.
	"700,000 document-level links": func(w io.Writer) {
		io.WriteString(w, memHead)
		for i := 0; i < 700000; i++ {
			fmt.Fprintf(w, `<rs:ln rel="no-such-rel" href="http://example.com/d/%07d"/>`+"\n", i)
		}
		io.WriteString(w, "<url><loc>http://example.com/r</loc></url></urlset>\n")
	},
	// One entry with 5,000,000 extension elements.
	"one entry, 5,000,000 extension elements": func(w io.Writer) {
		io.WriteString(w, memHead+`<url><loc>http://example.com/r</loc>`)
		for i := 0; i < 5000000; i++ {
			io.WriteString(w, "<ex:a/>\n")
		}
		io.WriteString(w, "</url></urlset>\n")
	},
}

const memHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:ex="http://example.com/ns">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
`

// memReport is what the child process reports.
type memReport struct {
	Bytes, HeapSys, TotalAlloc int64
	Entries, Errors, Warnings  int
	Err                        string
}

func TestValidateMemoryHostileShapes(t *testing.T) {
	if name := os.Getenv("RSX_MEMORY_CHILD"); name != "" {
		validateMemoryChild(name)
		return
	}
	if testing.Short() {
		t.Skip("validates about 180 MB of XML")
	}
	for name := range hostileShapes {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestValidateMemoryHostileShapes$")
			cmd.Env = append(os.Environ(), "RSX_MEMORY_CHILD="+name, "GOGC=1000", "GOMEMLIMIT=off")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var r memReport
			i := strings.Index(string(out), "\n{")
			if i < 0 {
				t.Fatalf("child said %q", out)
			}
			line, _, _ := strings.Cut(string(out[i+1:]), "\n")
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("child said %q: %v", out, err)
			}
			t.Logf("%.1f MB, %d entries, %d errors, %d warnings: heap obtained %.1f MiB, allocated %.1f MiB in all",
				float64(r.Bytes)/1e6, r.Entries, r.Errors, r.Warnings, float64(r.HeapSys)/(1<<20), float64(r.TotalAlloc)/(1<<20))
			if r.Err != "" || r.Bytes > MaxDocumentBytes || r.Bytes < 40e6 {
				t.Fatalf("the document did not validate as meant: %+v", r)
			}
			if r.HeapSys > validateMemoryBound {
				t.Errorf("validating took %.0f MiB of heap; the bound is %d MiB", float64(r.HeapSys)/(1<<20), validateMemoryBound>>20)
			}
		})
	}
}

// validateMemoryChild validates the named shape, streamed from its writer,
// and prints a memReport as the last line of its output.
func validateMemoryChild(name string) {
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		hostileShapes[name](bw)
		bw.Flush()
		pw.Close()
	}()
	rep := Validate(pr, CheckOptions{})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r := memReport{Bytes: rep.Bytes, HeapSys: int64(ms.HeapSys), TotalAlloc: int64(ms.TotalAlloc),
		Entries: rep.Entries, Errors: rep.Errors, Warnings: rep.Warnings}
	if rep.Err != nil {
		r.Err = rep.Err.Error()
	}
	b, _ := json.Marshal(r)
	fmt.Printf("\n%s\n", b)
}

// TestValidateAllocationPerEntry: validating keeps only what cross-entry rules
// need (the duplicate set, 8 bytes a URI at most four fifths full), so what it
// allocates grows by little more than that per entry.
func TestValidateAllocationPerEntry(t *testing.T) {
	alloc := func(n int) uint64 {
		data := benchResourceList(t, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rep := Validate(strings.NewReader(string(data)), CheckOptions{})
		runtime.ReadMemStats(&after)
		if rep.Entries != n || rep.Errors != 0 {
			t.Fatalf("%d entries, %d errors", rep.Entries, rep.Errors)
		}
		return after.TotalAlloc - before.TotalAlloc - uint64(len(data)) // the string copy of data
	}
	small, large := alloc(5000), alloc(50000)
	perEntry := float64(large-small) / 45000
	t.Logf("5,000 entries: %d bytes allocated; 50,000: %d; %.1f bytes per entry", small, large, perEntry)
	if perEntry > 64 {
		t.Errorf("validating allocates %.0f bytes per entry; at most 64 expected (the duplicate set's share)", perEntry)
	}
}

// TestValidateHandOver: what Validate hands over from an entry or the document
// before its end is judged as when the whole is held (the same problems, the
// same counts; only the order of one entry's problems may differ).
func TestValidateHandOver(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.Replace(memHead, `<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>`, "", 1))
	for i := 0; i < 700; i++ {
		switch {
		case i == 5 || i == 650:
			b.WriteString(`<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>` + "\n")
		case i%97 == 0:
			fmt.Fprintf(&b, `<rs:ln rel="bogus" href="http://example.com/d/%d"/>`+"\n", i)
		case i%3 == 0:
			fmt.Fprintf(&b, "<ex:meta n=\"%d\">x</ex:meta>\n<unknown/>\n", i)
		default:
			fmt.Fprintf(&b, `<rs:ln rel="describedby" href="http://example.com/d/%d"/>`+"\n", i)
		}
	}
	for e := 0; e < 3; e++ {
		b.WriteString("<url>")
		if e != 1 {
			fmt.Fprintf(&b, "<loc>http://example.com/r/%d</loc>", e)
		}
		for i := 0; i < 1100; i++ {
			switch {
			case i%101 == 0:
				fmt.Fprintf(&b, `<rs:ln rel="alternate" href="http://example.com/a/%d" hash="md5:xyz"/>`, i)
			case i%5 == 0:
				fmt.Fprintf(&b, "<ex:x>%d</ex:x><changes/>", i)
			default:
				fmt.Fprintf(&b, `<rs:ln rel="alternate" type="text/html" href="http://example.com/a/%d"/>`, i)
			}
		}
		if e == 1 {
			b.WriteString("<loc>http://example.com/r/1</loc>")
		}
		b.WriteString("</url>\n")
	}
	b.WriteString("</urlset>\n")
	doc := b.String()
	want := validate(strings.NewReader(doc), CheckOptions{MaxProblems: 1 << 20}, DecoderOptions{})
	got := Validate(strings.NewReader(doc), CheckOptions{MaxProblems: 1 << 20})
	if got.Errors != want.Errors || got.Warnings != want.Warnings || got.Entries != want.Entries || got.Err != nil {
		t.Fatalf("%d errors, %d warnings, %d entries (%v); want %d, %d, %d", got.Errors, got.Warnings, got.Entries, got.Err, want.Errors, want.Warnings, want.Entries)
	}
	key := func(ps []Problem) []string {
		var out []string
		for _, p := range ps {
			msg := p.Message
			if p.Entry == 1 {
				// Its <loc> comes after its links: what is handed over
				// before names the entry by its line.
				msg = strings.Replace(strings.Replace(msg, "(http://example.com/r/1)", "", 1), "(line 937)", "", 1)
			}
			out = append(out, fmt.Sprintf("%d %d %s %s", p.Entry, p.Line, p.Rule, msg))
		}
		slices.Sort(out)
		return out
	}
	if g, w := key(got.Problems), key(want.Problems); !slices.Equal(g, w) {
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("problems differ (%d, want %d); first difference:\n got %s\nwant %s", len(g), len(w), g[i], w[i])
			}
		}
		t.Fatalf("%d problems, want %d", len(g), len(w))
	}
	if want.Errors == 0 || want.Warnings == 0 {
		t.Fatalf("the document was meant to have errors and warnings: %+v", want)
	}
}
