package main

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
// many. The Change List parts are closed one hour each, in order, from
// 2030.
//
// Under /past/ the same Source is dated in the past, its Change Lists a
// minute each from 2020 (a million of them end in 2021), and its Resource
// List (/past/rl.xml) lists nothing: a sync of /past/cap.xml is a quick
// empty baseline, and the next one an incremental sync that reads every
// part of the Change List Index (/past/cl.xml).
func indexPartsSource(t testing.TB, parts int) *httptest.Server {
	t.Helper()
	const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		from, step := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour
		p := r.URL.Path
		past := false
		if rest, ok := strings.CutPrefix(p, "/past/"); ok {
			base, p, past = base+"/past", "/"+rest, true
			from, step = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Minute
		}
		hour := func(k int) string { return model.FormatDatetime(from.Add(time.Duration(k) * step)) }
		w.Header().Set("Content-Type", "application/xml")
		bw := bufio.NewWriterSize(w, 64<<10)
		defer bw.Flush()
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
		case p == "/rl.xml" && past:
			fmt.Fprintf(bw, "%s<urlset %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:md capability=\"resourcelist\" at=\"%s\"/></urlset>\n", head, ns, base, hour(0))
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
				hash, length := fmt.Sprintf("%032x", k), 1000+k%1000
				if past {
					body := pastBody(k)
					hash, length = fmt.Sprintf("%x", md5.Sum(body)), len(body)
				}
				fmt.Fprintf(bw, "%s<urlset %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:ln rel=\"index\" href=\"%s/cl.xml\"/><rs:md capability=\"changelist\" from=\"%s\"%s/>"+
					"<url><loc>%s/r/%d</loc><rs:md change=\"updated\" datetime=\"%s\" hash=\"md5:%s\" length=\"%d\"/></url></urlset>\n",
					head, ns, base, base, hour(k), until, base, k, hour(k), hash, length)
				return
			}
			if s, ok := strings.CutPrefix(p, "/r/"); ok && past {
				// The resources of the past Source: a few bytes each,
				// as its Change Lists describe them.
				if k, err := strconv.Atoi(s); err == nil && k >= 0 && k < parts {
					w.Header().Set("Content-Type", "text/plain")
					bw.Write(pastBody(k))
					return
				}
			}
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// pastBody is the resource /past/r/K of indexPartsSource.
func pastBody(k int) []byte { return fmt.Appendf(nil, "resource %d\n", k) }

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
// sync --dry-run on the indexes of a million parts, and sync (planned, and
// run) of a copy whose next run reads the whole Change List Index, and fails
// when one's peak RSS passes 256 MB. RSX_INDEX_KEEP=DIR keeps each command's
// standard output in DIR (to compare a plan before and after a change).
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
	// A copy of the past Source: its empty baseline made before the
	// command, which syncs the changes of every part of its Change List
	// Index.
	changesDest := func() string {
		d := t.TempDir()
		out, err := exec.Command(rsx, "--no-cache", "--rate", "0", "sync", "--dest", d, srv.URL+"/past/cap.xml").CombinedOutput()
		if err != nil {
			t.Fatalf("the empty baseline of the past Source: %v\n%s", err, lastLines(string(out)))
		}
		return d
	}
	for _, c := range []struct {
		name   string
		args   []string
		before func() string // makes the DEST the command syncs into
	}{
		{"tree --depth 0", []string{"tree", "--depth", "0", srv.URL + "/cl.xml"}, nil},
		{"tree --depth 1", []string{"tree", "--depth", "1", "--max-documents", "-1", srv.URL + "/cl.xml"}, nil},
		{"tree --depth 1 --json", []string{"tree", "--depth", "1", "--json", "--max-documents", "-1", srv.URL + "/cl.xml"}, nil},
		{"validate --recursive", []string{"validate", "--recursive", "--max-documents", "-1", srv.URL + "/cl.xml"}, nil},
		{"validate --recursive --json", []string{"validate", "--recursive", "--json", "--max-documents", "-1", srv.URL + "/rl.xml"}, nil},
		{"sync --dry-run", []string{"sync", "--dry-run", "--dest", t.TempDir(), srv.URL + "/cap.xml"}, nil},
		{"sync --dry-run --json of the Change List Index", []string{"sync", "--dry-run", "--json", srv.URL + "/past/cap.xml"}, changesDest},
		{"sync of the Change List Index", []string{"sync", srv.URL + "/past/cap.xml"}, changesDest},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if !only.MatchString(c.name) {
				t.Skipf("RSX_INDEX_ONLY=%s", only)
			}
			args := c.args
			if c.before != nil {
				args = append([]string{args[0], "--dest", c.before()}, args[1:]...)
			}
			cmd := exec.Command(rsx, append([]string{"--no-cache", "--rate", "0"}, args...)...)
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
			if dir := os.Getenv("RSX_INDEX_KEEP"); dir != "" {
				if err := os.WriteFile(filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".out"), out.Bytes(), 0o644); err != nil {
					t.Error(err)
				}
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
