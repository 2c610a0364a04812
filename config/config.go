// Package config reads rsx's configuration file: default flags, the
// explorer's theme and key bindings, and named destinations (rsx sync --dest
// archive: for a bucket URL and the environment variables its credentials
// come from). It imports nothing of ours: the command line applies what it
// reads.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
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
	for _, s := range *k {
		if strings.TrimSpace(s) == "" {
			return errors.New("an empty key")
		}
	}
	if len(*k) == 0 {
		return errors.New("no key given (leave the action out to keep its keys)")
	}
	return nil
}

// Dest is a named destination: where it is, and the environment variables
// a bucket's credentials are read from (their names, never the secrets).
type Dest struct {
	URL             string `toml:"url" json:"url"`
	AccessKeyEnv    string `toml:"access_key_env" json:"access_key_env,omitempty"`
	SecretKeyEnv    string `toml:"secret_key_env" json:"secret_key_env,omitempty"`
	SessionTokenEnv string `toml:"session_token_env" json:"session_token_env,omitempty"`
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

// Load reads the file at path. A file that does not exist is no error: the
// Config sets nothing.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Path: path}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(b)
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

// Parse reads the file's text. Keys it does not know are an error naming
// them; so are a theme, a destination or a default it cannot use.
func Parse(b []byte) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(b), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		names := make([]string, len(und))
		for i, k := range und {
			names[i] = k.String()
		}
		return nil, fmt.Errorf("unknown setting %s (docs/config.md lists them)", strings.Join(names, ", "))
	}
	if c.Theme != "" && !slices.Contains(Themes, c.Theme) {
		return nil, fmt.Errorf("theme %q: one of %s", c.Theme, strings.Join(Themes, ", "))
	}
	if d := c.Defaults; d.Rate != nil && *d.Rate < 0 {
		return nil, fmt.Errorf("defaults.rate %v: 0 (unlimited) or more requests per second", *d.Rate)
	}
	if d := c.Defaults; d.Concurrency != nil && *d.Concurrency < 1 {
		return nil, fmt.Errorf("defaults.concurrency %d: 1 or more", *d.Concurrency)
	}
	for _, name := range c.DestNames() {
		if err := checkDest(name, c.Dest[name]); err != nil {
			return nil, err
		}
	}
	return &c, nil
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
	return nil
}

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
	r := Resolved{Dest: u, Name: name}
	if d.AccessKeyEnv != "" || d.SessionTokenEnv != "" {
		alias := map[string]string{
			"AWS_ACCESS_KEY_ID":     d.AccessKeyEnv,
			"AWS_SECRET_ACCESS_KEY": d.SecretKeyEnv,
			"AWS_SESSION_TOKEN":     d.SessionTokenEnv,
		}
		r.Getenv = func(k string) string {
			if a, ok := alias[k]; ok && a != "" {
				return getenv(a)
			}
			if ok && d.AccessKeyEnv != "" {
				// The file names where this bucket's credentials are: the
				// ambient ones are another account's.
				return ""
			}
			return getenv(k)
		}
	}
	return r, nil
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
