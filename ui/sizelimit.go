package ui

import (
	"errors"
	"strings"

	"rsx/display"
	"rsx/fetch"
)

// sizeLimitNote is what the status bar says of a document that --max-bytes
// stopped (issue 27): that the size limit was reached, its value, and the
// flag that raises it, in a full and a short form; "" for other errors.
func sizeLimitNote(err error) (full, short string) {
	var tl *fetch.TooLargeError
	if !errors.As(err, &tl) {
		return "", ""
	}
	limit := display.Size(tl.Limit)
	full = "the size limit was reached: larger than " + limit + ", the limit of --max-bytes; raise it, e.g. --max-bytes " +
		strings.ReplaceAll(display.Size(2*tl.Limit), " ", "")
	return full, "size limit " + limit + " (--max-bytes)"
}
