package display

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
)

// Secrets never leave in what rsx shows: the password of a URL's userinfo
// (http://user:password@host/…, and s3://key:secret@bucket, which rsx
// refuses) is written as "xxxxx", as url.URL.Redacted writes it, and a
// secret known to the caller (an S3 secret key or session token read from
// the environment, a --user password) as Redacted. Every place output
// leaves rsx (the command line's streams, its JSON, the run history, the
// engine's errors, the explorer) goes through RedactURL or Redact.

// Redacted stands for a secret known to the caller in redacted text.
const Redacted = "[redacted]"

// minSecret is the length below which a known secret is not looked for:
// a value that short would redact ordinary words, and is no secret.
const minSecret = 6

// RedactURL is raw with the password of its userinfo written as "xxxxx"
// (url.URL.Redacted); a string that is not a URL with a password is
// returned as it is.
func RedactURL(raw string) string {
	if !strings.Contains(raw, "@") {
		return raw
	}
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return u.Redacted()
		}
		return raw
	}
	return Redact(raw)
}

var (
	// userinfo matches a URL's scheme and userinfo with a password,
	// anywhere in text: the password runs to the last @ before the path (a
	// raw @ in it is taken as url.Parse takes it).
	userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#@:"'<>\\]*):[^\s/?#"'<>\\]*@`)
	// s3userinfo matches a bucket URL's key and secret: an S3 secret key
	// has slashes, which end no userinfo there (the bucket follows the @).
	s3userinfo = regexp.MustCompile(`((?i:s3)://[^\s/?#@:"'<>\\]*):[^\s?#"'<>\\]*?@`)
)

// Redact is text (an error message, a line of output, a JSON document) with
// the password of every URL in it written as "xxxxx", and every secret
// given (those shorter than six bytes are left) as Redacted.
func Redact(text string, secrets ...string) string {
	if strings.Contains(text, "://") && strings.Contains(text, "@") {
		text = s3userinfo.ReplaceAllString(text, "${1}:xxxxx@")
		text = userinfo.ReplaceAllString(text, "${1}:xxxxx@")
	}
	for _, s := range secrets {
		if len(s) >= minSecret && strings.Contains(text, s) {
			text = strings.ReplaceAll(text, s, Redacted)
		}
	}
	return text
}

// MayHoldSecret reports whether text may hold something Redact changes:
// a URL with userinfo, or one of the secrets. It spares the copy of text
// that holds none.
func MayHoldSecret(text []byte, secrets ...string) bool {
	// bytes.Contains, not strings.Contains(string(text), …): the string
	// was copied, the whole of every write (a dry run's --json of a
	// million decisions copied its 177 MB).
	if bytes.Contains(text, []byte("://")) && bytes.IndexByte(text, '@') >= 0 {
		return true
	}
	for _, sec := range secrets {
		if len(sec) >= minSecret && bytes.Contains(text, []byte(sec)) {
			return true
		}
	}
	return false
}
