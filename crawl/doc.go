// Package crawl is discovery and navigation: from any URL to the Source Description, the document graph, up/index/down links and cross-document checks.
//
// It reaches the network only through a fetch.Getter (a *fetch.Client satisfies
// it), so the politeness limits of the client apply to every request.
package crawl
