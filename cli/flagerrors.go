package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rsx/internal/suggest"
)

// flagError says in words what is wrong with an option, for every command
// (cobra's FlagErrorFunc): an unknown option with the likeliest one meant
// (cobra suggests commands, not options), a value of the wrong kind with
// what is wanted instead of the parser's message (strconv.ParseFloat: …,
// time: missing unit …), an option without its value. What cannot be
// said better keeps pflag's words.
func flagError(cmd *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &notExist):
		if group := notExist.GetSpecifiedShortnames(); group != "" {
			msg = fmt.Sprintf("unknown option -%s (in -%s)", notExist.GetSpecifiedName(), group)
			if group == notExist.GetSpecifiedName() {
				msg = "unknown option -" + group
			}
		} else {
			name := notExist.GetSpecifiedName()
			msg = "unknown option --" + name
			if s := suggestFlag(cmd, name); s != "" {
				msg += "; did you mean --" + s + "?"
			}
		}
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		msg = fmt.Sprintf("--%s %q: %s", f.Name, invalid.GetValue(), wantedValue(f, invalid.Unwrap()))
	case errors.As(err, &required):
		f := required.GetFlag()
		msg = fmt.Sprintf("--%s needs a value: %s", f.Name, wantedValue(f, nil))
	}
	return failed(fmt.Errorf("%s (%s --help lists the options)", msg, cmd.CommandPath()))
}

// wantedValue says what kind of value flag f takes; cause is the parser's
// error, kept when it is rsx's own and already in words (sizes).
func wantedValue(f *pflag.Flag, cause error) string {
	switch f.Value.Type() {
	case "float64", "float32":
		return "want a number, such as 2 or 0.5"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return "want a whole number, such as 8"
	case "duration":
		return "want a length of time with its unit, such as 30s, 5m or 1h30m"
	case "bool":
		return "want true or false (or the option alone for true)"
	}
	if cause != nil {
		return cause.Error()
	}
	return f.Usage
}

// suggestFlag is the option of cmd (its own and those it inherits) that
// name most likely meant: the nearest by edit distance, at most 2 edits
// (or a third of the name's length for long names), or the one that name
// begins; "" when none is near.
func suggestFlag(cmd *cobra.Command, name string) string {
	best, bestDist := "", 0
	limit := max(2, len(name)/3)
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := suggest.Distance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		if d <= limit && (best == "" || d < bestDist || d == bestDist && f.Name < best) {
			best, bestDist = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}
