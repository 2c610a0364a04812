package cli

import (
	"io"
	"strings"
	"sync/atomic"

	"rsx/display"
)

// No secret leaves in what rsx prints. The engine, the store and the state
// quote URLs without their passwords where they make a message or a row
// (display.RedactURL); at the command line's edge, both streams pass
// through redactWriter, which writes the password of any URL with
// userinfo, and the secrets rsx was given (secrets), as display.Redact
// does: whatever a command prints, in text, in JSON, in an error, in a
// fleet's report of its Sources, is redacted there once more. The explorer
// draws through its own escaper, which redacts the same way
// (ui/components.Escape).

// redactWriter is a stream of the command line whose writes go out
// redacted (display.Redact) with the secrets secrets gives.
type redactWriter struct {
	w       io.Writer
	secrets func() []string
}

func (r *redactWriter) Write(p []byte) (int, error) {
	var sec []string
	if r.secrets != nil {
		sec = r.secrets()
	}
	if !display.MayHoldSecret(p, sec...) {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, display.Redact(string(p), sec...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap is the stream written to: a terminal is still one (isTerminal),
// and the explorer draws on it (through its own escaper).
func (r *redactWriter) Unwrap() io.Writer { return r.w }

// plainWriter is w without the redactWriters around it.
func plainWriter(w any) any {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// appSecrets gives the secrets of the app that runs, once it is made (the
// streams are wrapped before).
type appSecrets struct{ a atomic.Pointer[app] }

func (s *appSecrets) list() []string {
	if a := s.a.Load(); a != nil {
		return a.secrets()
	}
	return nil
}

// secrets are the values rsx was given that no output may hold: the S3
// secret keys and session tokens of the environment and of the variables
// the configuration file's destinations name, and the password of --user.
func (a *app) secrets() []string {
	var out []string
	add := func(env string) {
		if env != "" {
			if v := a.getenv(env); v != "" {
				out = append(out, v)
			}
		}
	}
	add("AWS_SECRET_ACCESS_KEY")
	add("AWS_SESSION_TOKEN")
	if cfg := a.cfg; cfg != nil {
		for _, d := range cfg.Dest {
			add(d.SecretKeyEnv)
			add(d.SessionTokenEnv)
		}
	}
	if _, pass, ok := strings.Cut(a.http.user, ":"); ok && pass != "" {
		out = append(out, pass)
	}
	return out
}
