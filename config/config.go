// Package config reads rsx's configuration file: default flags, the
// explorer's theme and key bindings, and named destinations (rsx sync --dest
// archive: for a bucket URL and the environment variables its credentials
// come from). Of ours it imports only internal/suggest: the command line
// applies what it reads.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"golang.org/x/net/http/httpguts"

	"rsx/display"
	"rsx/internal/suggest"
)

// EnvPath is the environment variable naming the file instead of the
// usual place.
const EnvPath = "RSX_CONFIG"

// Themes are the values theme may take: auto follows the terminal's
// background (the default).
var Themes = []string{"auto", "dark", "light"}

// Config is what the file sets. The zero Config (no file) sets nothing.
type Config struct {
	// Path is the file read; Exists whether it was there.
	Path   string `toml:"-"`
	Exists bool   `toml:"-"`

	Theme    string             `toml:"theme"`
	Defaults Defaults           `toml:"defaults"`
	Dest     map[string]Dest    `toml:"dest"`
	Keys     map[string]KeyList `toml:"keys"`
}

// Defaults are flag values used when the flag is not given; nil: not set.
type Defaults struct {
	Rate        *float64  `toml:"rate" json:"rate,omitempty"`
	Concurrency *int      `toml:"concurrency" json:"concurrency,omitempty"`
	UserAgent   *string   `toml:"user_agent" json:"user_agent,omitempty"`
	Timeout     *Duration `toml:"timeout" json:"timeout,omitempty"`
}

// Duration is a time.Duration written as Go writes one ("30s", "1m30s").
type Duration struct{ time.Duration }

// UnmarshalText reads "30s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration such as 30s or 2m: %q", b)
	}
	if v <= 0 {
		return fmt.Errorf("a duration above zero is needed, not %q", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes "30s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// KeyList is the keys bound to one action: a list, or one key as a string.
type KeyList []string

// UnmarshalTOML takes "q" or ["q", "ctrl+q"].
func (k *KeyList) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*k = KeyList{v}
	case []any:
		out := make(KeyList, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("a key is a string such as \"q\" or \"ctrl+q\", not %v", e)
			}
			out = append(out, s)
		}
		*k = out
	default:
		return fmt.Errorf("keys are a string or a list of strings, not %v", v)
	}
	// A blank key (" ") is left to the explorer's check, which names
	// space.
	if slices.Contains(*k, "") {
		return errors.New("an empty key")
	}
	if len(*k) == 0 {
		return errors.New("no key given (leave the action out to keep its keys)")
	}
	return nil
}

// Dest is a named destination: where it is, and the environment variables
// a bucket's credentials are read from (their names, never the secrets).
//
// Profile instead names a profile of the AWS shared files
// (~/.aws/credentials, ~/.aws/config), as AWS_PROFILE does.
type Dest struct {
	URL             string `toml:"url" json:"url"`
	AccessKeyEnv    string `toml:"access_key_env" json:"access_key_env,omitempty"`
	SecretKeyEnv    string `toml:"secret_key_env" json:"secret_key_env,omitempty"`
	SessionTokenEnv string `toml:"session_token_env" json:"session_token_env,omitempty"`
	Profile         string `toml:"profile" json:"profile,omitempty"`
}

// DefaultPath is the file read when RSX_CONFIG is not set:
// rsx/config.toml under the user's configuration folder
// ($XDG_CONFIG_HOME, ~/.config on Linux).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("config: no configuration folder: %w (set %s to the file)", err, EnvPath)
	}
	return filepath.Join(dir, "rsx", "config.toml"), nil
}

// Path is the file rsx reads: $RSX_CONFIG, or DefaultPath.
func Path(getenv func(string) string) (string, error) {
	if p := getenv(EnvPath); p != "" {
		return p, nil
	}
	return DefaultPath()
}

// Check looks at a Config that parsed for problems this package cannot see
// (the explorer's keys, which the explorer knows): each is one line that
// starts with the setting it is about.
type Check func(*Config) []string

// ProblemsError is a file that parses but holds settings rsx cannot use:
// every unknown setting and every value it cannot use, so that one run
// names them all (one fix at a time would take as many runs).
type ProblemsError struct {
	Problems []string
}

func (e *ProblemsError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%d problems: %s", len(e.Problems), strings.Join(e.Problems, "; "))
}

// Load reads the file at path; checks add their problems to the file's
// own. A file that does not exist is no error: the Config sets nothing.
// One larger than MaxFileBytes, or nested deeper than MaxDepth, is refused
// before it is parsed.
func Load(path string, checks ...Check) (*Config, error) {
	b, err := ReadBounded(path, MaxFileBytes, "config")
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Path: path}, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := Parse(b, checks...)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.Path, c.Exists = path, true
	return c, nil
}

// destName is what a destination may be called: a letter first (so that a
// Windows drive, C:, is never taken for one), then letters, digits, - and _.
var destName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]+$`)

// envName is what the name of an environment variable may be.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Parse reads the file's text. Text that is not TOML, or a value of the
// wrong type, is an error at once; after that every problem is gathered
// (a *ProblemsError): each setting it does not know, with the one it
// most likely meant, a theme, a destination or a default it cannot use,
// and what checks find.
func Parse(b []byte, checks ...Check) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(b), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return nil, err
	}
	var probs []string
	for _, k := range md.Undecoded() {
		probs = append(probs, unknownSetting(k))
	}
	if c.Theme != "" && !slices.Contains(Themes, c.Theme) {
		probs = append(probs, fmt.Sprintf("theme %q: one of %s", c.Theme, strings.Join(Themes, ", ")))
	}
	if d := c.Defaults; d.Rate != nil && *d.Rate < 0 {
		probs = append(probs, fmt.Sprintf("defaults.rate %v: 0 (unlimited) or more requests per second", *d.Rate))
	}
	if d := c.Defaults; d.Concurrency != nil && *d.Concurrency < 1 {
		probs = append(probs, fmt.Sprintf("defaults.concurrency %d: 1 or more", *d.Concurrency))
	}
	if d := c.Defaults; d.UserAgent != nil {
		if err := CheckHeaderValue(*d.UserAgent); err != nil {
			probs = append(probs, fmt.Sprintf("defaults.user_agent %q: %v", *d.UserAgent, err))
		}
	}
	for _, name := range c.DestNames() {
		if err := checkDest(name, c.Dest[name]); err != nil {
			probs = append(probs, err.Error())
		}
	}
	for _, check := range checks {
		probs = append(probs, check(&c)...)
	}
	if len(probs) > 0 {
		return nil, &ProblemsError{Problems: probs}
	}
	return &c, nil
}

// unknownSetting says that k is no setting, with the one of its table it
// most likely meant.
func unknownSetting(k toml.Key) string {
	msg := "unknown setting " + k.String()
	var known []string
	switch {
	case len(k) == 1:
		known = tomlNames(reflect.TypeFor[Config]())
	case len(k) == 2 && k[0] == "defaults":
		known = tomlNames(reflect.TypeFor[Defaults]())
	case len(k) == 3 && k[0] == "dest":
		known = tomlNames(reflect.TypeFor[Dest]())
	}
	if s := suggest.Nearest(k[len(k)-1], known); s != "" {
		return msg + " (did you mean " + strings.Join(append(slices.Clone(k[:len(k)-1]), s), ".") + "?)"
	}
	return msg + " (docs/config.md lists the settings)"
}

// tomlNames are the settings of a table: its struct's toml tags.
func tomlNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

func checkDest(name string, d Dest) error {
	if !destName.MatchString(name) {
		return fmt.Errorf("dest.%s: a destination's name is a letter, then letters, digits, - or _ (two characters or more)", name)
	}
	if d.URL == "" {
		return fmt.Errorf("dest.%s: no url (a folder, or s3://bucket/prefix?endpoint=…)", name)
	}
	s3 := strings.HasPrefix(d.URL, "s3://")
	for _, e := range []struct{ key, v string }{
		{"access_key_env", d.AccessKeyEnv}, {"secret_key_env", d.SecretKeyEnv}, {"session_token_env", d.SessionTokenEnv},
	} {
		if e.v == "" {
			continue
		}
		if !s3 {
			return fmt.Errorf("dest.%s.%s: only a bucket (s3://…) takes credentials", name, e.key)
		}
		if !envName.MatchString(e.v) {
			// Not quoted: what is there may be the secret itself.
			return fmt.Errorf("dest.%s.%s is not the name of an environment variable (letters, digits and _): the name goes there, and the secret itself stays out of the file", name, e.key)
		}
	}
	if (d.AccessKeyEnv == "") != (d.SecretKeyEnv == "") {
		return fmt.Errorf("dest.%s: access_key_env and secret_key_env go together", name)
	}
	if d.Profile != "" {
		switch {
		case !s3:
			return fmt.Errorf("dest.%s.profile: only a bucket (s3://…) takes credentials", name)
		case d.AccessKeyEnv != "" || d.SessionTokenEnv != "":
			return fmt.Errorf("dest.%s: profile or access_key_env and secret_key_env, not both (two sources of one bucket's credentials)", name)
		case !profileName.MatchString(d.Profile):
			return fmt.Errorf("dest.%s.profile %q: the name of a profile of ~/.aws/credentials (letters, digits, and . _ - @ +)", name, d.Profile)
		}
	}
	return nil
}

// profileName is what rsx takes as the name of an AWS profile.
var profileName = regexp.MustCompile(`^[A-Za-z0-9._@+-]+$`)

// DestNames are the names of the destinations defined, sorted.
func (c *Config) DestNames() []string {
	names := make([]string, 0, len(c.Dest))
	for n := range c.Dest {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsDestName reports whether dest is written as a named destination,
// NAME: or NAME:sub/path (not a URL with ://, not a drive letter).
func IsDestName(dest string) bool {
	name, rest, ok := strings.Cut(dest, ":")
	return ok && destName.MatchString(name) && !strings.HasPrefix(rest, "//")
}

// Resolved is a destination as store.Open takes it: the URL or folder, and
// how its credentials are read (nil: the environment as it is).
type Resolved struct {
	Dest   string
	Name   string // the name it was given by; "" for a plain DEST
	Getenv func(string) string
}

// ResolveDest turns NAME: or NAME:sub into the destination the file names
// (sub appended to its prefix or folder), its credentials read from the
// variables it names through getenv. Any other DEST is returned as it is.
// An unknown name is an error listing the names defined.
func (c *Config) ResolveDest(dest string, getenv func(string) string) (Resolved, error) {
	if !IsDestName(dest) {
		return Resolved{Dest: dest}, nil
	}
	name, sub, _ := strings.Cut(dest, ":")
	d, ok := c.Dest[name]
	if !ok {
		where := "no configuration file"
		if c.Exists {
			where = c.Path
		}
		defined := "none is defined"
		if names := c.DestNames(); len(names) > 0 {
			defined = "defined: " + strings.Join(names, ", ")
		}
		return Resolved{}, fmt.Errorf("destination %q: no destination named %s in %s (%s; ./%s for a folder of that name)", dest, name, where, defined, dest)
	}
	u, err := appendSub(d.URL, sub)
	if err != nil {
		return Resolved{}, fmt.Errorf("destination %q: %w", dest, err)
	}
	r := Resolved{Dest: u, Name: name, Getenv: d.credentialsEnv(getenv)}
	return r, nil
}

// credentialsEnv is how the bucket's credentials are read (nil: as the
// environment is). The variables the entry names stand for
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and
// nothing else is read: neither the ambient keys nor the AWS shared files,
// which are another account's. A profile stands for AWS_PROFILE, and the
// ambient keys, which would come first, are not read.
func (d Dest) credentialsEnv(getenv func(string) string) func(string) string {
	switch {
	case d.AccessKeyEnv != "" || d.SessionTokenEnv != "":
		alias := map[string]string{
			"AWS_ACCESS_KEY_ID":     d.AccessKeyEnv,
			"AWS_SECRET_ACCESS_KEY": d.SecretKeyEnv,
			"AWS_SESSION_TOKEN":     d.SessionTokenEnv,
		}
		return func(k string) string {
			if a, ok := alias[k]; ok && a != "" {
				return getenv(a)
			}
			if d.AccessKeyEnv != "" {
				return ""
			}
			// A session token alone: the keys are the ambient ones.
			return getenv(k)
		}
	case d.Profile != "":
		return func(k string) string {
			switch k {
			case "AWS_PROFILE":
				return d.Profile
			case "AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY", "AWS_SESSION_TOKEN":
				return ""
			}
			return getenv(k)
		}
	}
	return nil
}

// appendSub appends sub (a/b) to the folder or to the bucket URL's prefix.
func appendSub(base, sub string) (string, error) {
	sub = strings.Trim(sub, "/")
	if sub == "" {
		return base, nil
	}
	for _, seg := range strings.Split(sub, "/") {
		if seg == "." || seg == ".." || seg == "" {
			return "", fmt.Errorf("the sub-path %q has an empty, . or .. part", sub)
		}
	}
	if !strings.HasPrefix(base, "s3://") {
		return filepath.Join(base, filepath.FromSlash(sub)), nil
	}
	path, query, hasQuery := strings.Cut(base, "?")
	if strings.ContainsAny(sub, "?#%") {
		return "", fmt.Errorf("the sub-prefix %q may not hold ?, # or %%", sub)
	}
	u := strings.TrimRight(path, "/") + "/" + sub
	if hasQuery {
		u += "?" + query
	}
	return u, nil
}

// KeyBindings are [keys]: an action and its keys.
func (c *Config) KeyBindings() map[string][]string {
	out := make(map[string][]string, len(c.Keys))
	for k, v := range c.Keys {
		out[k] = v
	}
	return out
}

// CheckHeaderValue tells what makes v no good as the value of an HTTP
// request header: a line break would end the header (net/http refuses to
// send it, so every request would fail), and any other control character
// (C0 but tab, DEL, C1), a bidirectional or other format character or
// invalid UTF-8 is refused too: the value is shown on terminals and in
// logs (display.Unsafe is their rule).
func CheckHeaderValue(v string) error {
	if !utf8.ValidString(v) {
		return errors.New("not valid UTF-8")
	}
	for _, r := range v {
		switch {
		case r == '\r' || r == '\n':
			return errors.New("a control character (a line break) would end the header")
		case r != '\t' && display.Unsafe(r):
			return fmt.Errorf("a control character (%U) is not allowed in a header value", r)
		}
	}
	if !httpguts.ValidHeaderFieldValue(v) {
		return errors.New("not a valid header value")
	}
	return nil
}
