package dump

import "strings"

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
