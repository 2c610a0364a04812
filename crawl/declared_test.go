package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"rsx/fetch"
	"rsx/model"
)

// The length and digests an index declares for its parts are compared with
// the bytes received: Content-Encoding undone, a .gz file as the file.
func TestWalkChecksDeclaredDigests(t *testing.T) {
	s := newSite(t)
	part := func(n int) string {
		return urlset(`capability="resourcelist" at="2013-01-03T09:00:00Z"`, []string{ln("index", "{{base}}/index.xml")},
			fmt.Sprintf("http://example.com/r%d", n))
	}
	gz := func(b string) string {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(b))
		zw.Close()
		return buf.String()
	}
	md5hex := func(b string) string { return fmt.Sprintf("%x", md5.Sum([]byte(b))) }
	sha := func(b string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(b))) }

	p1, p2, p3, p4 := part(1), part(2), part(3), part(4)
	s.set("/p1.xml", page{ctype: "application/xml", body: p1})
	p2gz := gz(strings.ReplaceAll(p2, "{{base}}", s.URL))
	s.set("/p2.xml.gz", page{ctype: "application/gzip", body: p2gz})
	p3 = strings.ReplaceAll(p3, "{{base}}", s.URL)
	s.set("/p3.xml", page{ctype: "application/xml", body: gz(p3), header: map[string][]string{"Content-Encoding": {"gzip"}}})
	p4 = strings.ReplaceAll(p4, "{{base}}", s.URL)
	s.set("/p4.xml", page{ctype: "application/xml", body: p4})
	p1 = strings.ReplaceAll(p1, "{{base}}", s.URL)

	s.xml("/index.xml", sitemapindex(`capability="resourcelist" at="2013-01-03T09:00:00Z"`, nil,
		fmt.Sprintf(`{{base}}/p1.xml hash="md5:%s sha-256:%s" length="%d"`, md5hex(p1), sha(p1), len(p1)),
		fmt.Sprintf(`{{base}}/p2.xml.gz hash="md5:%s" length="%d"`, md5hex(p2gz), len(p2gz)),
		fmt.Sprintf(`{{base}}/p3.xml hash="md5:%s" length="%d"`, md5hex(p3), len(p3)),
		fmt.Sprintf(`{{base}}/p4.xml hash="md5:%s sha-256:%s" length="%d"`, md5hex(p1), sha(p4), len(p4)+1),
	))
	client, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	root, err := NewGraph(client, GraphOptions{}).Walk(context.Background(), s.URL+"/index.xml", WalkOptions{Depth: Unlimited, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	streamAgrees(t, client, s.URL+"/index.xml", WalkOptions{Depth: Unlimited, Check: true}, root, s.URL)
	var got []model.Problem
	for _, p := range root.Cross {
		if p.Rule == RuleDocumentDeclaredMismatch {
			got = append(got, p)
		}
	}
	if len(got) != 1 {
		t.Fatalf("problems %v, want one document-declared-mismatch on entry 3", got)
	}
	p := got[0]
	if p.Entry != 3 || p.Severity != model.SeverityError || p.Section != "7" {
		t.Errorf("problem %+v", p)
	}
	for _, want := range []string{"entry 4", "/p4.xml", "length " + fmt.Sprint(len(p4)+1) + " declared, " + fmt.Sprint(len(p4)) + " received",
		"md5 " + md5hex(p1) + " declared, " + md5hex(p4) + " received", "(§7)"} {
		if !strings.Contains(p.Message, want) {
			t.Errorf("message %q lacks %q", p.Message, want)
		}
	}
	if strings.Contains(p.Message, "sha-256") {
		t.Errorf("message %q names a digest that matched", p.Message)
	}
	if c := root.Children[1].Content; c == nil || c.Length != int64(len(p2gz)) {
		t.Errorf("the .gz part's content %+v, want the %d bytes of the file", c, len(p2gz))
	}
	if root.Content != nil {
		t.Errorf("the root, which no entry declares, was measured: %+v", root.Content)
	}
}
