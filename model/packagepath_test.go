package model

import (
	"bytes"
	"strings"
	"testing"
)

// TestPackageMember is the one rule for a bitstream's path in a package.
// The rows marked "disagreed" are the paths that the validator used to
// accept and `rsx dump --extract` refused (or, for the network path, refused
// for another reason): one rule now decides them.
func TestPackageMember(t *testing.T) {
	for _, tc := range []struct {
		path   string
		member string // "" when refused
		reason string // part of the reason, "" when accepted
	}{
		{"/resources/res1", "resources/res1", ""},
		{"resources/res1", "resources/res1", ""}, // no leading slash: path-not-absolute, but relative all the same
		{"/a", "a", ""},
		{"/a/..b/c", "a/..b/c", ""},
		{"/..a", "..a", ""},
		{"/a../b", "a../b", ""},
		{"/a/...b", "a/...b", ""},
		{"/café/日本.txt", "café/日本.txt", ""},
		{"/a\u00a0b", "a\u00a0b", ""}, // a no-break space is shown as a space
		{"", "", "is empty"},
		{"/", "", "names the package root"},
		{"/a/../b", "", `".." segment`},
		{"/..", "", `".." segment`},
		{"/resources/../../etc/passwd", "", `".." segment`},
		{`/a\b`, "", "backslash"},
		{"/a\x00b", "", "NUL byte"},
		{"/a\x01b", "", "control character"},
		{"/a\tb", "", "control character"},
		{"/a\x7f", "", "control character"},
		{"/a\u009b2J", "", "control character"}, // C1: a one-character CSI
		{"/C:/x", "", "drive letter"},
		{"C:/x", "", "drive letter"},
		{"/c:x", "", "drive letter"},
		{"//server/share", "", "absolute path (it starts with //, a network path"}, // the validator said "starts with // (a network path)"
		{"/a/./b", "", `is not a clean path (empty or "." segment)`},               // disagreed
		{"/./a", "", "not a clean path"},                                           // disagreed
		{"/a/.", "", "not a clean path"},                                           // disagreed
		{"/a//b", "", "not a clean path"},                                          // disagreed
		{"/dir/", "", "names a directory"},                                         // disagreed
		{"/a\xffb", "", "not valid UTF-8"},                                         // disagreed
		{"/invoice\u202egpj.exe", "", "bidirectional"},                             // disagreed
		{"/a\u2066b", "", "bidirectional"},                                         // disagreed
		{"/a\u200fb", "", "bidirectional"},                                         // disagreed
		{"/a\u2028b", "", "line-separator"},                                        // disagreed
	} {
		member, reason := PackageMember(tc.path)
		if member != tc.member || (tc.reason == "") != (reason == "") || !strings.Contains(reason, tc.reason) {
			t.Errorf("PackageMember(%q) = %q, %q; want %q, a reason with %q", tc.path, member, reason, tc.member, tc.reason)
		}
	}
}

// TestUnsafeMemberName: a name of the ZIP's own directory goes by the same
// rule, without the leading slash a manifest writes.
func TestUnsafeMemberName(t *testing.T) {
	for _, name := range []string{"", "/a", "a/../b", "..", "a\\b", "a\x00b", "a\x01b", "C:/x", "c:x", "a/", "a//b", "./a", "a/.",
		"a\u009b2J", "a\u009d0;x", "a\x7f", "invoice\u202egpj.exe", "a\u2066b", "a\u200fb", "a\xffb"} {
		if UnsafeMemberName(name) == "" {
			t.Errorf("%q accepted", name)
		}
	}
	for _, name := range []string{"a", "a/b.txt", "resources/res1", "..a", "a..", "a/...b", "café/日本.txt", "a\u00a0b"} {
		if why := UnsafeMemberName(name); why != "" {
			t.Errorf("%q refused: %s", name, why)
		}
	}
}

// TestValidatePackagePaths: the validator refuses what the extractor
// refuses, says why in the extractor's words, and points at the section.
func TestValidatePackagePaths(t *testing.T) {
	for _, tc := range []struct {
		path string // as written in the XML attribute
		why  string
	}{
		{"/a/./b", `is not a clean path (empty or "." segment)`},
		{"/a//b", `is not a clean path (empty or "." segment)`},
		{"/dir/", "names a directory, not a file"},
		{"/invoice&#x202E;gpj.exe", "contains a bidirectional, line-separator or invisible character"},
		{"/zero&#x200B;width.txt", "contains a bidirectional, line-separator or invisible character"},
		{"/a&#x9;b", "contains a control character"},
		{"//server/share", "is an absolute path (it starts with //, a network path on Windows)"},
		{"/C:/x", "starts with a drive letter"},
		{"/resources/../../etc/passwd", `has a ".." segment`},
	} {
		doc := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcedump-manifest" at="2013-01-03T09:00:00Z"/>
  <url><loc>http://example.com/res1</loc><rs:md path="` + tc.path + `"/></url>
</urlset>`
		r := Validate(bytes.NewReader([]byte(doc)), CheckOptions{})
		var msgs []string
		for _, p := range r.Problems {
			if p.Rule == "path-unsafe" {
				msgs = append(msgs, p.Message)
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.why) || !strings.Contains(msgs[0], "(§11.2)") {
			t.Errorf("path %s: path-unsafe messages %q, want one saying %q (§11.2)", tc.path, msgs, tc.why)
		}
	}
}
