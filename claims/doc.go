// Package claims checks a resource against what a Source's documents claim about it.
//
// A Resource List, a Change List or a dump manifest says, for each resource,
// how long it is, its media type, when it was last modified, its digests and
// where its mirrors are (rel="duplicate", section 14 of the specification).
// This package fetches a resource once (over HTTP through the fetch package,
// or from a local file), computes every declared digest in that one pass and
// compares what arrived with each claim, field by field: see Compare for the
// rules. It never reads a body much longer than its declared length, and it
// can share a byte budget between many checks running at once.
//
// Three kinds of callers use it: the explorer's resource view (Checker.Check),
// a spot audit of many resources (Checker.CheckEntry with a Budget), and a
// sync engine or a local audit that stream bodies themselves (Verifier,
// Checker.CheckFile).
package claims
