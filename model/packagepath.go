package model

import (
	"strings"
	"unicode/utf8"

	"rsx/display"
)

// The path of a bitstream in a dump package (ResourceSync 11.2, 13.2): one
// rule for every reader of it. The validator reports a path this refuses
// (path-unsafe), and `rsx dump --extract` and `--verify` refuse to read or
// write it, for the same reason in the same words.
//
// The rule is about the package, not a file system: a path of a copy on a
// Destination (dest/store.CheckPath, which dest/pathmap's paths must pass)
// answers another question, with limits of its own (name length, the
// Destination's own folder), and is decided there.

// PackageMember turns the path attribute of a manifest entry (<rs:md path>,
// <rs:ln path>) into the name of the ZIP member it designates, or says why it
// is refused. The specification writes paths with one leading slash,
// relative to the package root ("/resources/res1"); a path without it is
// taken as relative too (the validator reports that as path-not-absolute).
func PackageMember(path string) (name, reason string) {
	if path == "" {
		return "", "is empty"
	}
	if strings.HasPrefix(path, "//") {
		return "", "is an absolute path (it starts with //, a network path on Windows)"
	}
	name = strings.TrimPrefix(path, "/")
	if why := UnsafeMemberName(name); why != "" {
		return "", why
	}
	return name, ""
}

// UnsafeMemberName tells why a member name of a package (a manifest path
// without its leading slash, or a name in the ZIP's own directory) must not
// be read or written, "" when it is a clean relative path: valid UTF-8, no
// NUL, backslash, control, bidirectional, line-separator or other invisible
// character (display.Unsafe), not absolute, no drive letter, no empty, "."
// or ".." segment, not a directory.
func UnsafeMemberName(name string) string {
	if name == "" {
		return "names the package root, not a file"
	}
	for i := 0; i < len(name); i++ {
		switch b := name[i]; {
		case b == 0:
			return "contains a NUL byte"
		case b == '\\':
			return "contains a backslash"
		case b < 0x20 || b == 0x7f:
			return "contains a control character"
		}
	}
	// A name is shown (in reports, in a listing of the directory) as well as
	// written: one that a terminal would act on, or that is not text at all,
	// is refused rather than encoded, so that a file keeps the name its
	// manifest gives it or is not written.
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return "is not valid UTF-8"
		case display.Unsafe(r):
			if r >= 0x80 && r <= 0x9f {
				return "contains a control character"
			}
			return "contains a bidirectional, line-separator or invisible character that would change how names are shown"
		}
		i += n
	}
	if name[0] == '/' {
		return "is an absolute path"
	}
	if len(name) >= 2 && name[1] == ':' && (name[0]|0x20 >= 'a' && name[0]|0x20 <= 'z') {
		return "starts with a drive letter (an absolute Windows path)"
	}
	if strings.HasSuffix(name, "/") {
		return "names a directory, not a file"
	}
	for s := name; ; {
		seg, rest, more := strings.Cut(s, "/")
		switch seg {
		case "..":
			return `has a ".." segment (it climbs out of the package)`
		case ".", "":
			return `is not a clean path (empty or "." segment)`
		}
		if !more {
			return ""
		}
		s = rest
	}
}
