package crawl

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dump"
	"rsx/fetch"
	"rsx/model"
)

// zipOf builds a ZIP package with the given members (name, content) in order.
func zipOf(t *testing.T, members ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(members); i += 2 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: members[i], Method: zip.Deflate, Modified: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(members[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func md5Of(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

// manifestOf is a Resource Dump Manifest listing one bitstream per body, at
// resources/rN.
func manifestOf(capability string, bodies ...string) string {
	var entries []string
	for i, b := range bodies {
		md := fmt.Sprintf(`hash="md5:%s" length="%d" path="/resources/r%d"`, md5Of([]byte(b)), len(b), i)
		if capability == "changedump-manifest" {
			md += ` change="updated" datetime="2024-01-02T03:04:05Z"`
		}
		entries = append(entries, fmt.Sprintf("http://example.com/r%d %s", i, md))
	}
	return urlset(fmt.Sprintf(`capability=%q at="2024-01-02T03:04:05Z"`, capability), nil, entries...)
}

// packageOf is the ZIP of a manifest and its bitstreams.
func packageOf(t *testing.T, manifest string, bodies ...string) []byte {
	members := []string{"manifest.xml", manifest}
	for i, b := range bodies {
		members = append(members, fmt.Sprintf("resources/r%d", i), b)
	}
	return zipOf(t, members...)
}

// dumpEntry is one <url> of a dump: a package with its length and md5 (as
// given) and, when contents is not "", a contents link.
func dumpEntry(loc string, length int, md5hex, contents string) string {
	e := fmt.Sprintf(`  <url><loc>%s</loc><rs:md type="application/zip" length="%d" hash="md5:%s"/>`, loc, length, md5hex)
	if contents != "" {
		e += fmt.Sprintf(`<rs:ln rel="contents" href=%q type="application/xml"/>`, contents)
	}
	return e + "</url>\n"
}

func dumpDoc(md string, up string, entries ...string) string {
	var b strings.Builder
	b.WriteString(xmlHead)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n")
	fmt.Fprintf(&b, "  <rs:md %s/>\n  <rs:ln rel=\"up\" href=%q/>\n", md, up)
	for _, e := range entries {
		b.WriteString(e)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// packageSource is a Capability List with a Resource Dump of six packages
// (matching copy, differing copy, missing copy, wrong declared hash, missing
// package, no contents link) and a Change Dump with a differing copy.
func packageSource(t *testing.T, s *site) {
	bodies := []string{"alpha\n", "beta\n"}
	man := manifestOf("resourcedump-manifest", bodies...)
	other := manifestOf("resourcedump-manifest", "alpha\n", "BETA\n")
	pkg := packageOf(t, man, bodies...)
	zipSum, zipLen := md5Of(pkg), len(pkg)
	for i := 1; i <= 6; i++ {
		if i != 5 {
			s.set(fmt.Sprintf("/p%d.zip", i), page{ctype: "application/zip", body: string(pkg)})
		}
	}
	s.xml("/m1.xml", man)
	s.xml("/m2.xml", other)
	s.xml("/m4.xml", man)
	s.xml("/m5.xml", man)
	s.xml("/rd.xml", dumpDoc(`capability="resourcedump" at="2024-01-02T03:04:05Z"`, "{{base}}/cl.xml",
		dumpEntry("{{base}}/p1.zip", zipLen, zipSum, "{{base}}/m1.xml"),
		dumpEntry("{{base}}/p2.zip", zipLen, zipSum, "m2.xml"), // relative: resolved against the dump
		dumpEntry("{{base}}/p3.zip", zipLen, zipSum, "{{base}}/m3.xml"),
		dumpEntry("{{base}}/p4.zip", zipLen, strings.Repeat("0", 32), "{{base}}/m4.xml"),
		dumpEntry("{{base}}/p5.zip", zipLen, zipSum, "{{base}}/m5.xml"),
		dumpEntry("{{base}}/p6.zip", zipLen, zipSum, ""),
	))

	cman := manifestOf("changedump-manifest", bodies...)
	cother := manifestOf("changedump-manifest", bodies[0])
	czip := packageOf(t, cman, bodies...)
	s.set("/c1.zip", page{ctype: "application/zip", body: string(czip)})
	s.xml("/cm1.xml", cother)
	s.xml("/cd.xml", dumpDoc(`capability="changedump" from="2024-01-01T00:00:00Z"`, "{{base}}/cl.xml",
		dumpEntry("{{base}}/c1.zip", len(czip), md5Of(czip), "{{base}}/cm1.xml")))

	s.xml("/cl.xml", urlset(`capability="capabilitylist"`, nil,
		`{{base}}/rd.xml capability="resourcedump"`, `{{base}}/cd.xml capability="changedump"`))
}

func newFetchClient(t *testing.T) *fetch.Client {
	t.Helper()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// emptyDir fails when dir holds anything: the temporary packages must be gone.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind in the temporary directory: %s", e.Name())
	}
}

func TestWalkFetchPackages(t *testing.T) {
	s := newSite(t)
	packageSource(t, s)
	tmp := t.TempDir()
	g := NewGraph(newFetchClient(t), GraphOptions{})
	root, err := g.Walk(testCtx(t), s.URL+"/cl.xml", WalkOptions{
		Depth: Unlimited, Check: true, FetchPackages: true,
		PackageOptions: dump.Options{TempDir: tmp},
	})
	if err != nil {
		t.Fatal(err)
	}
	emptyDir(t, tmp)
	if len(root.Children) != 2 {
		t.Fatalf("children: %d", len(root.Children))
	}
	rd, cd := root.Children[0], root.Children[1]
	if len(rd.Packages) != 5 || rd.Packages[1].Contents != s.URL+"/m2.xml" {
		t.Errorf("package links: %+v", rd.Packages)
	}
	var got []string
	for _, p := range rd.Cross {
		got = append(got, fmt.Sprintf("%d %s %s %s", p.Entry, p.Rule, p.Section, p.Severity))
	}
	want := []string{
		"1 contents-manifest-mismatch 11.1 error",
		"2 contents-manifest-unreadable 11.1 error",
		"3 package-declared-mismatch 11.1 error",
		"4 contents-manifest-unreadable 11.1 error",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("resource dump problems:\n%s\nwant\n%s\n%+v", strings.Join(got, "\n"), strings.Join(want, "\n"), rd.Cross)
	}
	msg := func(i int) string {
		if i < len(rd.Cross) {
			return rd.Cross[i].Message
		}
		return ""
	}
	for i, parts := range [][]string{
		{"entry 2:", s.URL + "/p2.zip", s.URL + "/m2.xml", "differs", "http://example.com/r1", "hash md5:"},
		{"entry 3:", s.URL + "/m3.xml", "404"},
		{"entry 4:", s.URL + "/p4.zip", "md5", strings.Repeat("0", 32)},
		{"entry 5:", s.URL + "/p5.zip", "404"},
	} {
		for _, part := range parts {
			if !strings.Contains(msg(i), part) {
				t.Errorf("problem %d %q lacks %q", i, msg(i), part)
			}
		}
	}
	if len(cd.Cross) != 1 || cd.Cross[0].Rule != RuleContentsManifestMismatch || cd.Cross[0].Section != "13.1" ||
		!strings.Contains(cd.Cross[0].Message, "only in the package's manifest") {
		t.Errorf("change dump problems: %+v", cd.Cross)
	}
	if n := s.hitCount("/p6.zip"); n != 0 {
		t.Errorf("a package without a contents link was downloaded %d times", n)
	}
	if n := s.hitCount("/p1.zip"); n != 1 {
		t.Errorf("p1.zip downloaded %d times", n)
	}
	// The four package problems, and the relative contents href of entry 2
	// (link-href-not-absolute: a link conveys a URI).
	if e, _ := rd.ProblemCounts(); e != 5 {
		t.Errorf("errors of the dump = %d", e)
	}
	// CheckTree run again keeps the package problems.
	CheckTree(root)
	if len(rd.Cross) != 4 || len(cd.Cross) != 1 {
		t.Errorf("after CheckTree: %d and %d problems", len(rd.Cross), len(cd.Cross))
	}
}

func TestWalkFetchPackagesWithoutCheck(t *testing.T) {
	s := newSite(t)
	packageSource(t, s)
	tmp := t.TempDir()
	root, err := NewGraph(newFetchClient(t), GraphOptions{}).Walk(testCtx(t), s.URL+"/cl.xml", WalkOptions{
		Depth: Unlimited, FetchPackages: true, PackageConcurrency: 1, PackageOptions: dump.Options{TempDir: tmp},
	})
	if err != nil {
		t.Fatal(err)
	}
	emptyDir(t, tmp)
	if n := len(root.Children[0].Cross); n != 4 {
		t.Errorf("resource dump: %d problems, want 4: %+v", n, root.Children[0].Cross)
	}
}

func TestWalkWithoutFetchPackagesDownloadsNothing(t *testing.T) {
	s := newSite(t)
	packageSource(t, s)
	root, err := NewGraph(newFetchClient(t), GraphOptions{}).Walk(testCtx(t), s.URL+"/cl.xml", WalkOptions{Depth: Unlimited, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/p1.zip", "/m1.xml", "/c1.zip", "/cm1.xml"} {
		if n := s.hitCount(p); n != 0 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
	root.Walk(func(n *Node) bool {
		for _, p := range n.Cross {
			if strings.HasPrefix(p.Rule, "contents-") || p.Rule == RulePackageDeclaredMismatch {
				t.Errorf("%s: %+v", n.URL, p)
			}
		}
		return true
	})
}

func TestWalkFetchPackagesNeedsDownloader(t *testing.T) {
	s := newSite(t)
	packageSource(t, s)
	// testGetter cannot download: every package is reported, none fetched.
	root, err := NewGraph(&testGetter{}, GraphOptions{}).Walk(testCtx(t), s.URL+"/rd.xml", WalkOptions{FetchPackages: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range root.Cross {
		if p.Rule != RuleContentsManifestUnreadable {
			t.Errorf("%+v", p)
		}
	}
	if len(root.Cross) < 5 || s.hitCount("/p1.zip") != 0 {
		t.Errorf("problems %+v", root.Cross)
	}
}

func TestWalkFetchPackagesCancelled(t *testing.T) {
	s := newSite(t)
	packageSource(t, s)
	p := s.pages["/p1.zip"]
	p.delay = 3 * time.Second
	s.set("/p1.zip", p)
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	root, err := NewGraph(newFetchClient(t), GraphOptions{}).Walk(ctx, s.URL+"/rd.xml", WalkOptions{
		FetchPackages: true, PackageConcurrency: 1, PackageOptions: dump.Options{TempDir: tmp},
	})
	if err == nil {
		t.Errorf("no error from a cancelled walk")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled walk took %v", d)
	}
	if len(root.Cross) != 0 {
		t.Errorf("a cancelled walk reported %+v", root.Cross)
	}
	emptyDir(t, tmp)
}

func TestPackageRulesRegistered(t *testing.T) {
	ids := map[string]model.Rule{}
	for _, r := range Rules() {
		ids[r.ID] = r
	}
	for _, id := range []string{RuleContentsManifestMismatch, RuleContentsManifestUnreadable, RulePackageDeclaredMismatch} {
		if r, ok := ids[id]; !ok || r.Severity != model.SeverityError || r.Section != "11.1" {
			t.Errorf("%s: %+v", id, r)
		}
	}
}

// TestWalkDemoPackages walks both demo Sources with FetchPackages: the normal
// one has packages with contents links and no problem about them; the broken
// one has exactly the seeded differing copy (dataset 1, part 2).
func TestWalkDemoPackages(t *testing.T) {
	for _, broken := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 600, Broken: broken})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		tmp := t.TempDir()
		root, err := NewGraph(newFetchClient(t), GraphOptions{}).Walk(ctx, srv.URL+"/.well-known/resourcesync", WalkOptions{
			Depth: Unlimited, FetchPackages: true, PackageOptions: dump.Options{TempDir: tmp},
		})
		if err != nil {
			t.Fatal(err)
		}
		links := 0
		var got []string
		root.Walk(func(n *Node) bool {
			if !n.Repeat && n.Document != nil {
				links += len(n.Packages)
			}
			for _, p := range n.Cross {
				got = append(got, strings.TrimPrefix(n.URL, srv.URL)+" "+p.Rule+" "+p.Message)
			}
			return true
		})
		srv.Close()
		cancel()
		emptyDir(t, tmp)
		if links < 2 {
			t.Errorf("broken=%v: %d package links in the demo", broken, links)
		}
		switch {
		case !broken && len(got) != 0:
			t.Errorf("normal demo: %q", got)
		case broken && (len(got) != 1 || !strings.HasPrefix(got[0], "/dataset1/resourcedump.xml contents-manifest-mismatch entry 2:") || !strings.Contains(got[0], "part-0002.zip")):
			t.Errorf("broken demo: %q", got)
		}
	}
}

// TestPackageManifestProblems: the manifest found in a package against the
// dump entry that lists the package.
func TestPackageManifestProblems(t *testing.T) {
	dt := func(s string) model.Datetime {
		d, err := model.ParseDatetime(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	manifest := func(md string) *model.Document {
		d, err := model.Parse(strings.NewReader(urlset(md, nil, `http://example.com/r path="/r"`)))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	const at, at2 = "2013-01-03T09:00:00Z", "2013-01-03T09:05:00Z"
	tests := []struct {
		name     string
		dumpCap  model.Capability
		entry    model.Metadata
		manifest string
		want     []string // "rule section"
		mention  string
	}{
		{"Resource Dump package, Resource Dump Manifest, same at", model.CapResourceDump, model.Metadata{At: dt(at)},
			`capability="resourcedump-manifest" at="` + at + `"`, nil, ""},
		{"Resource Dump package, Change Dump Manifest", model.CapResourceDump, model.Metadata{},
			`capability="changedump-manifest" from="` + at + `"`, []string{"package-manifest-capability 11.1"}, `capability="changedump-manifest"`},
		{"Change Dump package without capability", model.CapChangeDump, model.Metadata{},
			`from="` + at + `"`, []string{"package-manifest-capability 13.1"}, "a Change Dump Manifest"},
		{"completed differs", model.CapResourceDump, model.Metadata{At: dt(at), Completed: dt(at2)},
			`capability="resourcedump-manifest" at="` + at + `" completed="` + at + `"`, []string{"package-entry-times 11.1"}, "completed " + at2},
		{"until differs", model.CapChangeDump, model.Metadata{From: dt(at), Until: dt(at2)},
			`capability="changedump-manifest" from="` + at + `" until="2013-01-04T00:00:00Z"`, []string{"package-entry-times 13.1"}, "until " + at2},
		{"Change Dump entry without times", model.CapChangeDump, model.Metadata{},
			`capability="changedump-manifest" from="` + at + `"`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			section := "11.1"
			if tt.dumpCap == model.CapChangeDump {
				section = "13.1"
			}
			prob := func(id, format string, args ...any) model.Problem {
				p := problem(id, 2, format, args...)
				p.Section = section
				return p
			}
			pl := &PackageLink{Entry: 2, Loc: "http://example.com/p.zip", MD: tt.entry}
			ps := packageManifestProblems(tt.dumpCap, pl, manifest(tt.manifest), prob)
			var got []string
			for _, p := range ps {
				got = append(got, p.Rule+" "+p.Section)
				if !strings.Contains(p.Message, "entry 3:") || !strings.Contains(p.Message, tt.mention) || p.Severity != rule(p.Rule).Severity {
					t.Errorf("problem %+v: want entry 3 and %q", p, tt.mention)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
