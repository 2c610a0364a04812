package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rsx/model"
)

// Memory with an index of a million parts (issue 23, BENCHMARKS.md "Indexes
// of a million parts"), opt-in:
//
//	RSX_SPEED=1 go test -run TestIndexParts1M -v -timeout 60m .
//	RSX_INDEX_PARTS=100000 …   (fewer parts)
//	RSX_INDEX_SERVE=1 go test -run TestServeIndexParts -v -timeout 0 .   (serve it for a hand run)
//
// indexPartsSource serves, generated on the fly, a Capability List
// (/cap.xml) with a Resource List Index (/rl.xml) and a Change List Index
// (/cl.xml) of parts parts each; every part (/rl/K.xml, /cl/K.xml) lists
// one resource, /r/K, so that the parts, not the resources, are what is
// many. The Change List parts are closed one hour each, in order.
func indexPartsSource(t testing.TB, parts int) *httptest.Server {
	t.Helper()
	from := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	hour := func(k int) string { return model.FormatDatetime(from.Add(time.Duration(k) * time.Hour)) }
	const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		w.Header().Set("Content-Type", "application/xml")
		bw := bufio.NewWriterSize(w, 64<<10)
		defer bw.Flush()
		p := r.URL.Path
		part := func(prefix string) (int, bool) {
			s, ok := strings.CutPrefix(p, prefix)
			if !ok {
				return 0, false
			}
			k, err := strconv.Atoi(strings.TrimSuffix(s, ".xml"))
			return k, err == nil && k >= 0 && k < parts && strings.HasSuffix(s, ".xml")
		}
		switch {
		case p == "/cap.xml":
			fmt.Fprintf(bw, "%s<urlset %s><rs:md capability=\"capabilitylist\"/>"+
				"<url><loc>%s/rl.xml</loc><rs:md capability=\"resourcelist\"/></url>"+
				"<url><loc>%s/cl.xml</loc><rs:md capability=\"changelist\"/></url></urlset>\n", head, ns, base, base)
		case p == "/rl.xml":
			fmt.Fprintf(bw, "%s<sitemapindex %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:md capability=\"resourcelist\" at=\"%s\"/>\n", head, ns, base, hour(0))
			var buf []byte
			for k := range parts {
				buf = fmt.Appendf(buf[:0], "<sitemap><loc>%s/rl/%d.xml</loc><rs:md at=\"%s\"/></sitemap>\n", base, k, hour(0))
				bw.Write(buf)
			}
			bw.WriteString("</sitemapindex>\n")
		case p == "/cl.xml":
			fmt.Fprintf(bw, "%s<sitemapindex %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:md capability=\"changelist\" from=\"%s\"/>\n", head, ns, base, hour(0))
			var buf []byte
			for k := range parts {
				until := ""
				if k < parts-1 {
					until = ` until="` + hour(k+1) + `"`
				}
				buf = fmt.Appendf(buf[:0], "<sitemap><loc>%s/cl/%d.xml</loc><rs:md from=\"%s\"%s/></sitemap>\n", base, k, hour(k), until)
				bw.Write(buf)
			}
			bw.WriteString("</sitemapindex>\n")
		default:
			if k, ok := part("/rl/"); ok {
				fmt.Fprintf(bw, "%s<urlset %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:ln rel=\"index\" href=\"%s/rl.xml\"/><rs:md capability=\"resourcelist\" at=\"%s\"/>"+
					"<url><loc>%s/r/%d</loc><rs:md hash=\"md5:%032x\" length=\"%d\"/></url></urlset>\n", head, ns, base, base, hour(0), base, k, k, 1000+k%1000)
				return
			}
			if k, ok := part("/cl/"); ok {
				until := ""
				if k < parts-1 {
					until = ` until="` + hour(k+1) + `"`
				}
				fmt.Fprintf(bw, "%s<urlset %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:ln rel=\"index\" href=\"%s/cl.xml\"/><rs:md capability=\"changelist\" from=\"%s\"%s/>"+
					"<url><loc>%s/r/%d</loc><rs:md change=\"updated\" datetime=\"%s\" hash=\"md5:%032x\" length=\"%d\"/></url></urlset>\n",
					head, ns, base, base, hour(k), until, base, k, hour(k), k, 1000+k%1000)
				return
			}
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func indexParts(t testing.TB) int {
	parts := 1_000_000
	if s := os.Getenv("RSX_INDEX_PARTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("RSX_INDEX_PARTS=%q: not a positive number", s)
		}
		parts = n
	}
	return parts
}

// TestServeIndexParts serves indexPartsSource until killed, for runs by hand
// under /usr/bin/time -v.
func TestServeIndexParts(t *testing.T) {
	if os.Getenv("RSX_INDEX_SERVE") == "" {
		t.Skip("set RSX_INDEX_SERVE=1 to serve an index of RSX_INDEX_PARTS (default 1,000,000) parts until killed")
	}
	srv := indexPartsSource(t, indexParts(t))
	fmt.Println(srv.URL + "/cap.xml")
	select {}
}

// TestIndexParts1M runs rsx tree (depth 0 and 1), validate --recursive and
// sync --dry-run on the indexes of a million parts, and fails when one's
// peak RSS passes 256 MB.
func TestIndexParts1M(t *testing.T) {
	requireSpeed(t)
	parts := indexParts(t)
	rsx := buildRSX(t)
	srv := indexPartsSource(t, parts)
	const budgetMB = 256
	// RSX_INDEX_ONLY, a regular expression, picks commands by name:
	// RSX_INDEX_ONLY='^(tree --depth 1|validate --recursive)$'.
	only, err := regexp.Compile(os.Getenv("RSX_INDEX_ONLY"))
	if err != nil {
		t.Fatalf("RSX_INDEX_ONLY: %v", err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"tree --depth 0", []string{"tree", "--depth", "0", srv.URL + "/cl.xml"}},
		{"tree --depth 1", []string{"tree", "--depth", "1", "--max-documents", "-1", srv.URL + "/cl.xml"}},
		{"tree --depth 1 --json", []string{"tree", "--depth", "1", "--json", "--max-documents", "-1", srv.URL + "/cl.xml"}},
		{"validate --recursive", []string{"validate", "--recursive", "--max-documents", "-1", srv.URL + "/cl.xml"}},
		{"validate --recursive --json", []string{"validate", "--recursive", "--json", "--max-documents", "-1", srv.URL + "/rl.xml"}},
		{"sync --dry-run", []string{"sync", "--dry-run", "--dest", t.TempDir(), srv.URL + "/cap.xml"}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if !only.MatchString(c.name) {
				t.Skipf("RSX_INDEX_ONLY=%s", only)
			}
			cmd := exec.Command(rsx, append([]string{"--no-cache", "--rate", "0"}, c.args...)...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			t0 := time.Now()
			err := cmd.Run()
			wall := time.Since(t0)
			if cmd.ProcessState == nil {
				t.Fatalf("rsx %s: %v", c.name, err)
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
				t.Fatalf("rsx %s: exit status %d\n%s", c.name, code, lastLines(errb.String()))
			}
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			t.Logf("rsx %s, %d parts: %v wall, %v CPU, %d MB peak RSS, exit %d; stdout %d bytes, its end: %s", c.name, parts,
				wall.Round(time.Millisecond), cpu.Round(time.Millisecond), rss, cmd.ProcessState.ExitCode(), out.Len(), lastLines(out.String()))
			if rss > budgetMB {
				t.Errorf("rsx %s took %d MB; the budget is %d MB", c.name, rss, budgetMB)
			}
		})
	}
}

// lastLines is the last lines of s, for a log.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], "\n")
}
