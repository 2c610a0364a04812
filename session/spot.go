package session

import (
	"context"

	"rsx/model"
	"rsx/spotcheck"
)

// SpotRequest is a spot check of a document's entries.
type SpotRequest struct {
	// From is the document the entries come from.
	From string
	// Entries are the entries to check, their locs absolute (resolved
	// against the document).
	Entries []model.Entry
	// Sample, when above 0 and below len(Entries), checks a seeded sample
	// of that many (spotcheck.Options.Sample); Seed chooses it.
	Sample int
	Seed   uint64
}

// SpotCheck fetches each entry's resource and its mirrors and holds them to
// what the entry declares, as rsx audit does, keeping every claim of every
// resource (the failures first). progress is called as it goes (from
// another goroutine; it must not block).
func (s *Session) SpotCheck(ctx context.Context, req SpotRequest, progress func(spotcheck.Progress)) (*spotcheck.Report, error) {
	client, err := s.destClient()
	if err != nil {
		return nil, err
	}
	a := spotcheck.New(client, spotcheck.Options{Sample: req.Sample, Seed: req.Seed, KeepResources: true, Progress: progress,
		Concurrency: s.opts.Dest.Concurrency, Claims: s.opts.Claims, TempDir: s.opts.TempDir})
	return a.RunEntries(ctx, req.From, req.Entries)
}
