package cli

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"rsx/config"
	"rsx/dest/store"
	"rsx/ui"
)

// cmpOr is the first of the functions that is not nil.
func cmpOr(fs ...func(string) string) func(string) string {
	for _, f := range fs {
		if f != nil {
			return f
		}
	}
	return nil
}

// loadConfig reads the configuration file (docs/config.md) once, before any
// command runs: an unreadable file, an unknown setting, an unknown key
// action or a key no key press is reported as stops every command, naming
// every problem, so that a mistake in the file is seen at once.
func (a *app) loadConfig() error {
	if a.cfg != nil {
		return nil
	}
	path, err := config.Path(a.getenv)
	if err != nil {
		return err
	}
	// The explorer's keys are checked with the rest of the file, so that
	// one run names every problem.
	c, err := config.Load(path, func(c *config.Config) []string { return ui.KeyProblems(c.KeyBindings()) })
	if err != nil {
		return err
	}
	a.cfg = c
	return nil
}

// getenv reads the environment (tests replace it).
func (a *app) getenv(k string) string {
	if a.env != nil {
		return a.env(k)
	}
	return os.Getenv(k)
}

// applyConfig is the root's PersistentPreRunE: it loads the file, gives the
// flags not given on the command line the file's defaults, and resolves a
// named --dest (NAME: or NAME:sub) to the folder or bucket the file names.
func (a *app) applyConfig(cmd *cobra.Command, _ []string) error {
	if err := a.loadConfig(); err != nil {
		return failed(err)
	}
	d := a.cfg.Defaults
	set := func(name, value string) error {
		f := cmd.Flag(name)
		if f == nil || f.Changed {
			return nil
		}
		// Value.Set, not FlagSet.Set: the flag stays "not given", so that a
		// host on this machine or a private network keeps its own limits.
		if err := f.Value.Set(value); err != nil {
			return failed(fmt.Errorf("config %s: defaults: --%s %s: %w", a.cfg.Path, name, value, err))
		}
		return nil
	}
	if d.Rate != nil {
		if err := set("rate", strconv.FormatFloat(*d.Rate, 'g', -1, 64)); err != nil {
			return err
		}
	}
	if d.Concurrency != nil {
		if err := set("concurrency", strconv.Itoa(*d.Concurrency)); err != nil {
			return err
		}
	}
	if d.UserAgent != nil {
		if err := set("user-agent", *d.UserAgent); err != nil {
			return err
		}
	}
	if d.Timeout != nil {
		if err := set("timeout", d.Timeout.String()); err != nil {
			return err
		}
	}
	// The explorer resolves its --dest itself (session.DestOptions.Resolve),
	// so that the page shows the name the user gave; an unknown name stops
	// it before it takes the screen.
	if cmd == cmd.Root() {
		if _, err := a.resolveDest(strings.TrimSpace(a.exploreDest)); err != nil {
			return failed(err)
		}
		return nil
	}
	// With --sources each Source's run resolves its own --dest.
	if f := cmd.Flags().Lookup("sources"); f != nil && f.Changed {
		return nil
	}
	if f := cmd.Flags().Lookup("dest"); f != nil && f.Changed {
		dest, err := a.resolveDest(f.Value.String())
		if err != nil {
			return failed(err)
		}
		if err := f.Value.Set(dest); err != nil {
			return failed(err)
		}
	}
	return nil
}

// resolveDest turns a named destination into the folder or bucket URL the
// configuration file gives it, and remembers where its credentials are read
// from (destGetenv). Any other DEST is returned as it is.
func (a *app) resolveDest(dest string) (string, error) {
	if err := a.loadConfig(); err != nil {
		return "", err
	}
	r, err := a.cfg.ResolveDest(dest, a.getenv)
	if err != nil {
		return "", err
	}
	if r.Getenv != nil {
		if a.destEnv == nil {
			a.destEnv = map[string]func(string) string{}
		}
		a.destEnv[r.Dest] = r.Getenv
	}
	return r.Dest, nil
}

// destGetenv is how the credentials of dest (resolved already) are read:
// from the variables its entry in the configuration file names, or the
// environment as it is (nil).
func (a *app) destGetenv(dest string) func(string) string {
	if g := a.destEnv[dest]; g != nil {
		return g
	}
	if a.env != nil {
		return a.env
	}
	return nil
}

// sessionResolve is session.DestOptions.Resolve: the explorer's --dest,
// :dest, :sync and :audit take named destinations too.
func (a *app) sessionResolve(dest string) (string, func(string) string, error) {
	u, err := a.resolveDest(dest)
	if err != nil {
		return "", nil, err
	}
	return u, a.destGetenv(u), nil
}

// exploreDark is the explorer's first theme and whether the terminal's
// background may change it (theme = "auto", the default).
func (a *app) exploreTheme() (dark, fixed bool) {
	switch a.cfg.Theme {
	case "light":
		return false, true
	case "dark":
		return true, true
	}
	return true, false
}

func newConfigCmd(a *app) *cobra.Command {
	var asJSON, example bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the configuration file: where it is and what it sets",
		Long: `config prints where rsx's configuration file is ($RSX_CONFIG, or
rsx/config.toml under $XDG_CONFIG_HOME, ~/.config on Linux), whether it
exists, and what it sets: default flags, the explorer's theme and keys, and
named destinations (rsx sync --dest archive: for the bucket or folder the file
names, its credentials read from the environment variables it names).
--example prints a commented example to start one from. docs/config.md
describes every setting.`,
		Example: `  rsx config
  rsx config --json
  rsx config --example > ~/.config/rsx/config.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if example {
				_, err := fmt.Fprint(a.out, configExample)
				return err
			}
			return a.runConfig(asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print it as JSON")
	cmd.Flags().BoolVar(&example, "example", false, "print a commented example of the file")
	return cmd
}

// configReport is rsx config --json.
type configReport struct {
	Path     string                 `json:"path"`
	Exists   bool                   `json:"exists"`
	Theme    string                 `json:"theme"`
	Defaults config.Defaults        `json:"defaults"`
	Dest     map[string]config.Dest `json:"dest"`
	Keys     map[string][]string    `json:"keys"`
	// BucketCredentials is where a bucket DEST given as a URL takes its
	// credentials from; DestCredentials where each named bucket does.
	BucketCredentials store.CredentialSource            `json:"bucket_credentials"`
	DestCredentials   map[string]store.CredentialSource `json:"dest_credentials"`
}

func (a *app) runConfig(asJSON bool) error {
	c := a.cfg
	theme := c.Theme
	if theme == "" {
		theme = "auto"
	}
	r := configReport{Path: c.Path, Exists: c.Exists, Theme: theme, Defaults: c.Defaults,
		Dest: map[string]config.Dest{}, Keys: map[string][]string{}}
	r.BucketCredentials = store.FindCredentials(a.getenv)
	r.DestCredentials = map[string]store.CredentialSource{}
	for n, d := range c.Dest {
		r.Dest[n] = d
		if store.IsBucket(d.URL) {
			res, err := c.ResolveDest(n+":", a.getenv)
			if err != nil {
				return err
			}
			r.DestCredentials[n] = destCredentials(d, cmpOr(res.Getenv, a.getenv), a.getenv)
		}
	}
	for k, v := range c.Keys {
		r.Keys[k] = v
	}
	if asJSON {
		return writeJSON(a.out, r)
	}
	var b strings.Builder
	state := "exists"
	if !c.Exists {
		state = "does not exist: rsx uses its defaults; rsx config --example prints one to start from"
	}
	fmt.Fprintf(&b, "file: %s (%s)\n", esc(r.Path), state)
	fmt.Fprintf(&b, "theme: %s\n", esc(theme))
	d := c.Defaults
	if d.Rate != nil || d.Concurrency != nil || d.UserAgent != nil || d.Timeout != nil {
		b.WriteString("defaults (when the flag is not given):\n")
		if d.Rate != nil {
			fmt.Fprintf(&b, "  --rate %v\n", *d.Rate)
		}
		if d.Concurrency != nil {
			fmt.Fprintf(&b, "  --concurrency %d\n", *d.Concurrency)
		}
		if d.UserAgent != nil {
			fmt.Fprintf(&b, "  --user-agent %s\n", esc(strconv.Quote(*d.UserAgent)))
		}
		if d.Timeout != nil {
			fmt.Fprintf(&b, "  --timeout %s\n", d.Timeout)
		}
	}
	if names := c.DestNames(); len(names) > 0 {
		b.WriteString("destinations (--dest NAME: or NAME:sub/path):\n")
		for _, n := range names {
			e := c.Dest[n]
			fmt.Fprintf(&b, "  %s: %s", esc(n), esc(e.URL))
			var creds []string
			if e.AccessKeyEnv != "" {
				creds = append(creds, "key $"+e.AccessKeyEnv, "secret $"+e.SecretKeyEnv)
			}
			if e.SessionTokenEnv != "" {
				creds = append(creds, "token $"+e.SessionTokenEnv)
			}
			if e.Profile != "" {
				creds = append(creds, "profile "+e.Profile)
			}
			if len(creds) > 0 {
				fmt.Fprintf(&b, " (credentials: %s)", esc(strings.Join(creds, ", ")))
			}
			b.WriteString("\n")
			if src, ok := r.DestCredentials[n]; ok {
				fmt.Fprintf(&b, "    credentials: %s\n", esc(src.String()))
			}
		}
	}
	fmt.Fprintf(&b, "bucket credentials (a bucket DEST given as s3://…): %s\n", esc(r.BucketCredentials.String()))
	if len(c.Keys) > 0 {
		b.WriteString("keys (the explorer):\n")
		names := make([]string, 0, len(c.Keys))
		for k := range c.Keys {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			fmt.Fprintf(&b, "  %s = %s\n", esc(k), esc(strings.Join(c.Keys[k], ", ")))
		}
	}
	_, err := fmt.Fprint(a.out, b.String())
	return err
}

// destCredentials is where the named bucket d takes its credentials from:
// the variables it names, or what its profile, or the environment, gives.
func destCredentials(d config.Dest, destEnv, getenv func(string) string) store.CredentialSource {
	if d.AccessKeyEnv != "" {
		src := store.CredentialSource{Kind: store.CredsEnvironment, Variable: d.AccessKeyEnv}
		for _, v := range []string{d.AccessKeyEnv, d.SecretKeyEnv} {
			if getenv(v) == "" {
				return store.CredentialSource{Kind: store.CredsNone, Variable: v, Problem: "$" + v + " is not set"}
			}
		}
		return src
	}
	src := store.FindCredentials(destEnv)
	if d.Profile != "" {
		src.Variable = "" // the file's profile, not AWS_PROFILE
	}
	return src
}

// configExample is rsx config --example: every setting, commented.
const configExample = `# rsx's configuration file: rsx/config.toml under $XDG_CONFIG_HOME
# (~/.config on Linux), or the file $RSX_CONFIG names. Every setting is
# optional; an unknown one is an error. rsx config shows what it sets.

# The explorer's colours: "auto" follows the terminal's background, "dark"
# or "light" keep one.
theme = "auto"

# Flags used when the command line does not give them.
[defaults]
# rate = 2.0            # --rate: requests per second to one host
# concurrency = 4       # --concurrency: requests in flight to one host
# user_agent = "my-archive-bot/1.0 (mailto:me@example.org)"
# timeout = "30s"       # --timeout

# Named destinations: rsx sync --dest archive: URL (or archive:2026/site for
# a sub-prefix), and wherever a DEST is taken (audit --dest, log, bag, the
# explorer's --dest, :dest, :sync and :audit).
# [dest.archive]
# url = "s3://bucket/prefix?endpoint=https://s3.example.org&region=us-east-1"
# access_key_env = "ARCHIVE_KEY"       # the names of environment variables,
# secret_key_env = "ARCHIVE_SECRET"    # never the secrets themselves
# session_token_env = "ARCHIVE_TOKEN"  # for temporary credentials
#
# [dest.shelf]
# url = "/srv/archive"

# The explorer's keys: an action (docs/config.md lists them) and its keys,
# which replace the default ones. Keys are named in lower case (f1, ctrl+q,
# shift+tab, pgdown); a character is itself (q, G, ?).
[keys]
# quit = ["q", "ctrl+q"]
# help = "?"
# filter = "/"
`
