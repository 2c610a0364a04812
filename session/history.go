package session

import (
	"context"
	"fmt"

	"rsx/crawl"
	"rsx/model"
)

// History loads the change history around target for the explorer's
// coverage view: the live change document and its archive (crawl.LoadHistory).
// target is a Change List or Change Dump, an index of them or a part of one
// (its index is then the live document), or a Change List or Change Dump
// Archive, or a part of one (the live document is then the one the
// Capability List above it lists). Links are followed through the session's
// HTTP client only: a document from the network never leads to a local file.
//
// The History is nil when the live document cannot be had; with a History,
// the error says what of the archive could not be had.
func (s *Session) History(ctx context.Context, target string) (*crawl.History, error) {
	g := crawl.NewGraph(s.get, crawl.GraphOptions{Decoder: s.opts.Decoder})
	doc, err := g.Load(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("coverage: load %s: %w", target, err)
	}
	live, capList := doc.Base(), ""
	switch c := doc.Capability(); {
	case c.IsArchive() && c.Archived().IsChange():
		want := c.Archived()
		ups := doc.UpLinks()
		if len(ups) == 0 {
			return nil, fmt.Errorf("coverage: the %s %s has no up link to the Capability List that lists its %s", c.Title(), target, want.Title())
		}
		capList = ups[0]
		cl, err := g.Load(ctx, capList)
		if err != nil {
			return nil, fmt.Errorf("coverage: load the Capability List %s above the %s: %w", capList, c.Title(), err)
		}
		live = ""
		for _, dl := range cl.Down {
			if dl.Capability == want {
				live = dl.Loc
				break
			}
		}
		if live == "" {
			return nil, fmt.Errorf("coverage: the Capability List %s lists no %s beside its %s", capList, want.Title(), c.Title())
		}
	case c.IsChange() && !c.IsManifest():
		if idx := doc.IndexLinks(); !doc.IsIndex() && len(idx) > 0 {
			live = idx[0] // a part: the history is its index's
		}
	default:
		return nil, fmt.Errorf("coverage is drawn for Change Lists, Change Dumps and their archives; %s is a %s", target, model.DocumentTitle(c, doc.Header.Root))
	}
	return crawl.LoadHistory(ctx, g, live, crawl.HistoryOptions{CapabilityList: capList})
}
