// Package spotcheck spot-checks a Source's own claims: from any capability document it reads the Resource Lists and Change Lists below, draws a sample of the resources and judges each, with its mirrors, by package claims.
//
// What must hold for a resource is what its Resource List entry declares,
// unless a Change List records a change to it after the list's at: then
// the latest change's claims hold, and a resource deleted since is expected
// to be gone (404 or 410). A resource that only a Change List names (created
// since the Resource List, or audited from a Change List alone) is a
// resource of the Source as well.
//
// The sample is drawn without holding the lists in memory: every resource
// gets a pseudo-random key from the seed and its URI, and the N resources
// with the smallest keys are kept (a reservoir of N, filled as the entries
// stream past). This is a uniform sample without replacement of all the
// resources of all the lists, the same for the same seed whatever order the
// lists arrive in. Sample 0 checks every resource, streaming: memory stays
// flat however many resources there are.
//
// Run reports progress as values through a callback and returns a Report
// of plain values, for the command line and the explorer alike.
package spotcheck
