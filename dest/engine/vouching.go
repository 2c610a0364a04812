package engine

import (
	"bytes"
	"context"
	"errors"
	"html"
	"os"
	"slices"
	"strings"

	"rsx/dest/state"
)

const (
	// maxVouched bounds the files a reconcile's kept parts are chosen by: a
	// run that wrote more keeps every part it read, as a baseline does (its
	// uploads are those of a run of many changes anyway).
	maxVouched = 10000
	// vouchBudget bounds the bytes (as received) of the parts a reconcile
	// keeps that the state does not hold already (docCapture.vouchBudget):
	// a part of 500 entries is some 250 KB, 50 KB compressed, and a
	// reconcile that wrote a hundred files listed in a hundred parts would
	// add 5 MB to the state. The digests and length each file was verified
	// with are in run_file in any case.
	vouchBudget = 1 << 20
)

var errManyWritten = errors.New("more files written than parts are chosen by")

// vouchingParts is docs without the parts of a Resource List Index (parts)
// that list no file the run wrote (created, adopted or updated), and
// without those past vouchBudget: a reconcile reads every part again, and
// each part whose at had moved was kept again, the whole Resource List
// added to the state at every reconcile whatever it changed (for a bucket,
// 7.9 MB of uploads at 80,000 resources, some 80 MB at a million). What the
// Source claimed of the files the run wrote is kept (as far as the budget
// goes, in the order the parts were read), with the Source's other
// documents the run read.
func (s *Dest) vouchingParts(ctx context.Context, runID int64, docs []*capturedDoc, parts map[string]bool) ([]*capturedDoc, error) {
	written := map[string]bool{}
	err := s.db.RunFiles(ctx, runID, func(f *state.RunFile) error {
		if (f.Kind == state.FileCreated || f.Kind == state.FileUpdated) && f.URI != "" {
			if len(written) == maxVouched {
				return errManyWritten
			}
			written[f.URI] = true
		}
		return nil
	})
	if errors.Is(err, errManyWritten) {
		return docs, nil
	}
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(docs, func(a, b *capturedDoc) int {
		if c := a.FetchedAt.Compare(b.FetchedAt); c != 0 {
			return c
		}
		return strings.Compare(a.URL, b.URL)
	})
	kept := make([]*capturedDoc, 0, len(docs))
	budget := s.capture.vouchBudget
	for _, d := range docs {
		if parts[d.URL] {
			if len(written) == 0 || budget <= 0 || !listsAny(d, written) {
				continue
			}
			have, err := s.db.HaveDocumentBlob(ctx, d.SHA256)
			if err != nil {
				return nil, err
			}
			if !have {
				if d.Length > budget {
					continue
				}
				budget -= d.Length
			}
		}
		kept = append(kept, d)
	}
	return kept, nil
}

// listsAny reports whether the document d (a sitemap as received) has a loc
// that is one of uris, resolved against the document's URL as the plan
// resolves it. A document that cannot be read counts as listing one (it is
// kept, as before).
func listsAny(d *capturedDoc, uris map[string]bool) bool {
	b, err := os.ReadFile(d.path)
	if err != nil {
		return true
	}
	base := d.URL
	if d.FinalURL != "" {
		base = d.FinalURL
	}
	found := false
	eachLoc(b, func(loc string) bool {
		found = uris[resolveLoc(base, loc)]
		return !found
	})
	return found
}

// eachLoc calls fn with the text of each loc element of a sitemap (<loc> or
// <prefix:loc>, entities decoded, a CDATA section's text taken as it is,
// XML white space trimmed) until fn returns false. It reads the bytes as
// they are, without an XML parser: what it finds only chooses the documents
// kept.
func eachLoc(b []byte, fn func(loc string) bool) {
	for {
		i := bytes.Index(b, []byte("loc>"))
		if i < 0 {
			return
		}
		open := i > 0 && (b[i-1] == '<' || b[i-1] == ':' && openTag(b[:i-1]))
		b = b[i+len("loc>"):]
		if !open {
			continue
		}
		var v []byte
		if rest, ok := bytes.CutPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("<![CDATA[")); ok {
			j := bytes.Index(rest, []byte("]]>"))
			if j < 0 {
				return
			}
			v, b = rest[:j], rest[j:]
		} else {
			j := bytes.IndexByte(b, '<')
			if j < 0 {
				return
			}
			v, b = b[:j], b[j:]
		}
		loc := string(bytes.Trim(v, " \t\r\n"))
		if bytes.IndexByte(v, '&') >= 0 {
			loc = html.UnescapeString(loc)
		}
		if loc != "" && !fn(loc) {
			return
		}
	}
}

// openTag reports whether b ends in the start of an opening tag's prefixed
// name ("<prefix"), not a closing one ("</prefix").
func openTag(b []byte) bool {
	j := bytes.LastIndexByte(b, '<')
	if j < 0 || len(b)-j > 64 || j+1 >= len(b) {
		return false
	}
	return b[j+1] != '/' && !bytes.ContainsAny(b[j+1:], " \t\r\n>/")
}
