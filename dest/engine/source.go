package engine

import (
	"context"
	"strings"
)

// SourceOf finds the Source of target as Plan and Audit do (a Capability
// List, a document below one, a Source Description with one Capability
// List, or a page from which discovery finds one) and returns the key of
// its rows in a destination's state: the URL of its Capability List, or of
// the document given when it has none. It needs no destination and takes
// no lock: the explorer asks it to read a copy's state while it browses.
func SourceOf(ctx context.Context, client Client, target string, opts Options) (string, error) {
	r, err := ResolveSource(ctx, client, target, opts)
	if err != nil {
		return "", err
	}
	return r.Key(), nil
}

// ResolveLoc resolves an entry's loc against the URL of its document as
// Plan and Audit do (quickly for a plain absolute URL, the common case):
// the URI a resource has in a destination's state, and that PlanOptions.Only
// and AuditOptions.Only are matched against.
func ResolveLoc(base, loc string) string { return resolveLoc(base, strings.TrimSpace(loc)) }
