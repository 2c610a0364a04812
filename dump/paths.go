package dump

import (
	"strings"
	"unicode/utf8"

	"rsx/display"
)

// manifestName turns a manifest path attribute into the ZIP member name it
// designates, or says why it is refused. The specification writes paths with
// one leading slash, relative to the package root ("/resources/res1"); a path
// without it is taken as relative too.
func manifestName(p string) (name, reason string) {
	if p == "" {
		return "", "empty path"
	}
	name = strings.TrimPrefix(p, "/")
	if why := unsafeName(name); why != "" {
		return "", why
	}
	return name, ""
}

// unsafeName tells why a member name (or a manifest path without its leading
// slash) must not be read or written, "" when it is a clean relative path.
func unsafeName(name string) string {
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
			return "contains a bidirectional or line-separator character that would change how names are shown"
		}
		i += n
	}
	if name[0] == '/' {
		return "is an absolute path"
	}
	if len(name) >= 2 && name[1] == ':' && (name[0]|0x20 >= 'a' && name[0]|0x20 <= 'z') {
		return "starts with a drive letter"
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
			return "is not a clean path (empty or \".\" segment)"
		}
		if !more {
			break
		}
		s = rest
	}
	return ""
}
