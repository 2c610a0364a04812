package demo

import (
	"testing"
	"time"
)

// TestOddOptions crawls demos of unusual shapes and checks every document.
func TestOddOptions(t *testing.T) {
	for _, o := range []Options{
		{Resources: 2},
		{Resources: 10, ListSize: 1, PackageSize: 1},
		{Resources: 300, ListSize: 7, PackageSize: 1000, Seed: -5},
		{Resources: 5000, ListSize: 50000, PackageSize: 3000, Start: time.Date(2030, 6, 1, 12, 34, 56, 0, time.UTC)},
	} {
		s := New(o)
		s.Advance(30)
		docs := crawl(t, s.Handler())
		for u, d := range docs {
			for _, p := range check(d, u, "") {
				t.Errorf("%+v: %s: %s: %s", o, u, p.Rule, p.Message)
			}
		}
	}
}
