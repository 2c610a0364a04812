package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"rsx/crawl"
	"rsx/display"
	"rsx/model"
)

// Exit statuses of the command-line contract.
const (
	exitOK      = 0 // done, nothing wrong found
	exitFound   = 1 // done, and something is wrong
	exitFailure = 2 // could not do the job
)

// exitError carries an exit status out of a command. A nil err means the
// command has already reported what it found and only the status is left.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// foundProblems is returned by a command that finished its job and found
// something wrong (exit status 1); it has printed its findings already.
func foundProblems() error { return &exitError{code: exitFound} }

// failed wraps an error that stopped a command from doing its job (exit status 2).
func failed(err error) error { return &exitError{code: exitFailure, err: err} }

// exitWith returns the error for an exit status a command has already
// reported on: nil for exitOK.
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// writeJSON writes v as the one JSON document of --json: indented, with
// <, > and & as they are (URLs carry them), and every control or
// bidirectional character a Source wrote escaped (display.EscapeJSON), so
// that the document is as safe to print on a terminal as the text output.
// A document that holds lists too long for memory (streamedLists) has them
// written in place, an element at a time (writeJSONStreamed).
func writeJSON(w io.Writer, v any) error {
	if sd, ok := v.(interface{ streamedLists() []*streamedList }); ok {
		if lists := sd.streamedLists(); len(lists) > 0 {
			return writeJSONStreamed(w, v, lists...)
		}
	}
	return writeJSONWhole(w, v)
}

// writeJSONWhole is writeJSON of a document encoded whole.
func writeJSONWhole(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(display.EscapeJSON(b.Bytes()))
	return err
}

// writeJSONWithLists writes v, a struct, as writeJSON writes it (the same
// bytes: its fields in order, indented, escaped), except that each field
// named in lists (by its JSON name; a []string) is written from its
// function, an element at a time as the function emits them, so that a
// list of millions is never held in memory. Tags other than the name
// (omitempty) are not supported.
func writeJSONWithLists(w io.Writer, v any, lists map[string]func(emit func(string) error) error) error {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	if rt.Kind() != reflect.Struct {
		return fmt.Errorf("writeJSONWithLists: %s is not a struct", rt)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(x any, prefix string) ([]byte, error) {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(x); err != nil {
			return nil, err
		}
		return display.EscapeJSON(bytes.TrimRight(buf.Bytes(), "\n")), nil
	}
	bw.WriteByte('{')
	n := 0
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" && opts == "" {
			continue
		}
		if opts != "" {
			return fmt.Errorf("writeJSONWithLists: field %s: tag options are not supported", f.Name)
		}
		if name == "" {
			name = f.Name
		}
		key, err := encode(name, "")
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n  ")
		bw.Write(key)
		bw.WriteString(": ")
		each, streamed := lists[name]
		if !streamed {
			b, err := encode(rv.Field(i).Interface(), "  ")
			if err != nil {
				return err
			}
			bw.Write(b)
			continue
		}
		bw.WriteByte('[')
		k := 0
		err = each(func(s string) error {
			b, err := encode(s, "")
			if err != nil {
				return err
			}
			if k > 0 {
				bw.WriteByte(',')
			}
			k++
			bw.WriteString("\n    ")
			_, err = bw.Write(b)
			return err
		})
		if err != nil {
			return err
		}
		if k > 0 {
			bw.WriteString("\n  ")
		}
		bw.WriteByte(']')
	}
	if n > 0 {
		bw.WriteByte('\n')
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// esc makes text that a Source wrote (a URL, a value, a name, an error
// message quoting them) safe to print: see display.Escape. Every text
// output passes such text through it.
func esc(s string) string { return display.Escape(s) }

// errString is err's message for a JSON field that is null without an error.
func errString(err error) *string {
	if err == nil {
		return nil
	}
	s := err.Error()
	return &s
}

// isTerminal tells whether w is a terminal (progress lines go only there).
func isTerminal(w io.Writer) bool {
	f, ok := plainWriter(w).(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// useColor: colour only for a terminal, and never with NO_COLOR set.
func useColor(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

// textStyles colour the text output; all are identity when colour is off.
type textStyles struct {
	title, err, warn, dim, rule func(string) string
}

func newTextStyles(color bool) textStyles {
	if !color {
		id := func(s string) string { return s }
		return textStyles{id, id, id, id, id}
	}
	render := func(s lipgloss.Style) func(string) string { return func(x string) string { return s.Render(x) } }
	return textStyles{
		title: render(lipgloss.NewStyle().Bold(true)),
		err:   render(lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)),
		warn:  render(lipgloss.NewStyle().Foreground(lipgloss.Yellow)),
		dim:   render(lipgloss.NewStyle().Faint(true)),
		rule:  render(lipgloss.NewStyle().Foreground(lipgloss.Cyan)),
	}
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

// oneArg checks that a command got exactly one argument, and says in words
// what is missing or too much: what (e.g. "URL") and what it may be (hint),
// rather than cobra's "accepts 1 arg(s), received 0".
func oneArg(what, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return failed(fmt.Errorf("%s: no %s given: %s (rsx %s --help says more)", cmd.Name(), what, hint, cmd.Name()))
		case len(args) > 1:
			quoted := make([]string, len(args))
			for i, a := range args {
				quoted[i] = strconv.Quote(a)
			}
			return failed(fmt.Errorf("%s: one %s is wanted, %d were given (%s)", cmd.Name(), what, len(args), strings.Join(quoted, " ")))
		}
		return nil
	}
}

// errNotResourceSync is wrapped by the error of every command whose TARGET
// was read but is no ResourceSync document (an HTML page, a text file, XML
// of another kind) and leads to none. The rule, for every command, from the
// command-line contract: such a TARGET means the job could not be done (exit
// status 2, as for an unreachable target or an unreadable file), since there
// is nothing to check, walk, copy or audit. A document that is no
// ResourceSync document but is reached from a TARGET that is (a listed part
// that is an HTML page) is something wrong found: exit status 1.
var errNotResourceSync = errors.New("not a ResourceSync document")

// notResourceSync is the error, in words, for target that is no ResourceSync
// document: why says what was read instead (the root element, the parse
// error), or is nil; discovered tells that discovery from target found no
// ResourceSync document either. An http(s) target gets the command that
// shows what discovery tries.
func notResourceSync(target string, why error, discovered bool) error {
	msg := target + " is " + errNotResourceSync.Error()
	if why != nil {
		msg += " (" + strings.TrimPrefix(why.Error(), target+": ") + ")"
	}
	switch {
	case discovered:
		msg += ", and discovery found none from it: rsx discover " + target + " shows every method tried"
	case model.IsHTTPURL(target):
		msg += "; rsx discover " + target + " finds the ResourceSync documents it points to"
	}
	return &notResourceSyncError{msg: msg}
}

type notResourceSyncError struct{ msg string }

func (e *notResourceSyncError) Error() string { return e.msg }
func (e *notResourceSyncError) Unwrap() error { return errNotResourceSync }

// readButNotSitemap tells whether a document was read and is no Sitemap
// document at all: its root element is not <urlset> or <sitemapindex>, or
// its bytes are not XML (text before any element: a robots.txt, a JSON
// file). A Sitemap without ResourceSync metadata, and XML that breaks off
// or a gzip stream that is corrupt, are ResourceSync documents with errors
// (xml-malformed), not this.
func readButNotSitemap(h *model.Header, err error) bool {
	var se *model.SyntaxError
	switch {
	case errors.Is(err, crawl.ErrNotSitemap):
		return true
	case h != nil && h.Root == model.RootUnknown && h.RootLocal != "":
		return true
	}
	return errors.As(err, &se) && strings.HasPrefix(se.Msg, "not an XML document")
}

// discoverHint is what to try when target was read but is no ResourceSync
// document (a site's home page, say): rsx discover finds the documents it
// points to. "" for any other error.
func discoverHint(err error, target string) string {
	if !errors.Is(err, crawl.ErrNotSitemap) {
		return ""
	}
	return "rsx discover " + target + " finds the ResourceSync documents it points to"
}
