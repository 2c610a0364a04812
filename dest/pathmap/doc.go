// Package pathmap maps a resource's URI to the relative path of its copy inside a destination, deterministically and never outside it.
//
// # The default mapping
//
// A URI maps to its host, then its path: http://example.org/a/b.pdf is
// example.org/a/b.pdf. Paths are relative, use "/" as the separator on every
// platform (a Store turns them into file names or object keys), and are the same
// on every machine and every run for the same URI and options.
//
//   - Scheme: only http and https are mapped; both map to the same place, so
//     http://h/x and https://h/x collide (see Collisions).
//   - Host: lower-cased, converted to its ASCII (punycode) form, so
//     http://bücher.example/ and http://xn--bcher-kva.example/ map alike. A port
//     other than the scheme's default is appended after a "+":
//     http://127.0.0.1:8080/x is 127.0.0.1+8080/x (":" is not allowed in file
//     names on Windows; "+" never occurs in a host name). Userinfo is ignored.
//   - Percent-encoding: an escape of an unreserved character (letters, digits,
//     "-", ".", "_", "~"), of a space, or of a valid UTF-8 sequence of non-ASCII
//     characters is decoded (a%20b%C3%A9 is "a bé"). Every other escape is kept,
//     with upper-case hex (%2f becomes %2F; %2F never becomes a separator). A "%"
//     not followed by two hex digits is written %25: a loc that is not strictly
//     a URI (http://h/100%.txt, a control character) is taken as a browser
//     would send it (fetch.RequestURL), which is also what rsx requests, so
//     it maps to h/100%25.txt. Validation still reports such a loc.
//   - Unicode: every name is in NFC (golang.org/x/text/unicode/norm), so the
//     composed and decomposed spellings of é map alike, as macOS file systems
//     treat them. Invalid UTF-8 is never decoded, so names are always valid UTF-8.
//   - Unsafe characters: \ : * ? " < > | and every character a terminal or a
//     text format acts on, or that shows nothing (display.Unsafe, the rule rsx
//     escapes text for terminals by: C0 and C1 controls, DEL, the line and
//     paragraph separators, the format characters Cf such as the bidirectional
//     overrides and isolates, the zero width space and joiners, the byte order
//     mark, the soft hyphen and the tag characters, and noncharacters), raw or
//     escaped in the URI, are written as %XX escapes of their UTF-8 bytes (a
//     name never holds one), and so are a trailing "." or " " of a name
//     (Windows drops them). Spaces inside a name are kept.
//   - Dot segments: "." and ".." (also when written %2E) are resolved as RFC 3986
//     says, after decoding; ".." at the top stays at the top, so a path never
//     leaves its folder. Empty segments (a//b) are dropped.
//   - Trailing slash: a URI whose path ends with "/" (or is empty) names the
//     index of a folder: http://h/a/ is h/a/index.html (Options.IndexName).
//   - Query: the query is kept, as the last name's suffix after an escaped "?":
//     http://h/p?x=1&y=/z is h/p%3Fx=1&y=%2Fz, decoded and escaped as names are.
//     Parameters keep their order (a=1&b=2 and b=2&a=1 are different URIs). The
//     fragment is ignored.
//   - Reserved names: a name that Windows reserves for devices (CON, PRN, AUX,
//     NUL, COM0–COM9, LPT0–LPT9, CONIN$, CONOUT$, with or without an extension,
//     in any case) has its first character escaped: CON.txt is %43ON.txt. A first
//     name ".rsx", where the destination keeps its own files, is written %2Ersx.
//   - Long names: a name longer than 255 bytes is cut at a character boundary and
//     ends with "~" and 16 hex digits of the SHA-256 of the whole name, then the
//     original extension when it is short: the name stays unique and at most 255
//     bytes.
//
// # Map rules
//
// A rule PREFIX=DIR (the sync command's --map) maps every URI that starts with
// PREFIX to DIR followed by the rest of the URI, mapped as above. The prefix is
// compared after the normalisation above (scheme and host lower-cased, default
// port dropped, unreserved escapes decoded) and on a segment boundary: either the
// prefix ends with "/", or the URI continues with "/" or "?" or ends there.
// The longest matching prefix wins. DIR is a relative path inside the destination
// ("." or "" for its top); it must not contain ".." or start with ".rsx".
//
// # Authority
//
// Resources whose authority (host and port) is not one of Options.Authorities
// (the Source's own, normally that of its Capability List) are refused with an
// *Error of kind KindOutside, unless Options.AllowOtherHosts is set or a map rule
// matches the URI (a rule is an explicit choice to copy that prefix).
//
// # Collisions
//
// The mapping is designed so that different URIs rarely share a path, but some
// must: http:// and https:// of one resource, a//b and a/b, a%2Bb and a+b stay
// apart but composed and decomposed Unicode do not, and on a case-insensitive file
// system A.html and a.html are one file. A path may also be needed as a file and
// as a folder (http://h/a and http://h/a/b). Mapper does not remember what it
// mapped: the state's collision detector (package dest/state) compares each new
// path with those already held, by Key, which folds case, and the engine
// (dest/engine, collide.go) decides which resource gets a contested path by one
// rule: a folder over a file, then the byte-wise smallest URI.
package pathmap
