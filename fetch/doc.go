// Package fetch gets bytes: over HTTP politely and observably (client, retries, per-host limits, conditional-GET cache, redirects, downloads with progress), and from any target, URL or local file, with gzip undone (Open).
//
// It knows nothing of ResourceSync. Every request a Client makes is recorded
// as an Exchange, so a user interface can show what went over the wire.
package fetch
