package spotcheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// manyParts serves a Resource List Index of parts of different sizes whose
// resources all answer "x", and returns the size of each part.
func manyParts(t *testing.T, s *testSource) []int {
	t.Helper()
	s.handlePrefix("/r/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "x")
	})
	var sizes []int
	var parts []string
	for k := range 16 {
		n := 200 + 100*k
		sizes = append(sizes, n)
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `<url><loc>{{base}}/r/%02d/%d</loc><rs:md length="1"/></url>`, k, i)
		}
		part := fmt.Sprintf("/rl-%02d.xml", k)
		s.doc(part, urlset("resourcelist", "2013-01-03T00:00:00Z", b.String()))
		parts = append(parts, "{{base}}"+part)
	}
	s.doc("/rl.xml", index("resourcelist", "2013-01-03T00:00:00Z", parts...))
	return sizes
}

// perPart counts the resources requested in each part.
func perPart(s *testSource, parts int) []int {
	counts := make([]int, parts)
	for _, p := range s.requested("/r/") {
		var k, i int
		if _, err := fmt.Sscanf(p, "/r/%d/%d", &k, &i); err == nil && k < parts {
			counts[k]++
		}
	}
	return counts
}

// --sample N over an index of many parts draws from every part in
// proportion to its size. The draw is fixed by the seed, so the test cannot
// flake; the tolerance (five standard deviations of the hypergeometric
// count of each part) would hold for nearly every seed.
func TestSampleProportional(t *testing.T) {
	s := newTestSource(t)
	sizes := manyParts(t, s)
	total := 0
	for _, n := range sizes {
		total += n
	}
	const n = 1520
	rep := runAudit(t, s.URL+"/rl.xml", Options{Sample: n, Seed: 1})
	if rep.Checked != n || rep.OK != n || rep.Listed != int64(total) || len(rep.Lists) != 17 {
		t.Fatalf("checked %d (ok %d) of %d listed, %d lists", rep.Checked, rep.OK, rep.Listed, len(rep.Lists))
	}
	counts := perPart(s, len(sizes))
	sum := 0
	for k, c := range counts {
		sum += c
		p := float64(sizes[k]) / float64(total)
		mean := n * p
		sd := math.Sqrt(n * p * (1 - p) * float64(total-n) / float64(total-1))
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("part %d of %d entries: %d drawn, want %.0f ± %.0f", k, sizes[k], c, mean, 5*sd)
		}
	}
	if sum != n {
		t.Errorf("%d resources requested, want %d", sum, n)
	}
}

// The same seed draws the same resources, whatever order the parts arrive
// in; another seed draws others.
func TestSampleSeed(t *testing.T) {
	s := newTestSource(t)
	manyParts(t, s)
	draw := func(seed uint64, lists int) []string {
		s.resetHits()
		runAudit(t, s.URL+"/rl.xml", Options{Sample: 50, Seed: seed, ListConcurrency: lists})
		return s.requested("/r/")
	}
	a, b, c := draw(42, 1), draw(42, 8), draw(43, 4)
	if len(a) != 50 || !slices.Equal(a, b) {
		t.Errorf("seed 42 drew %d, then %d resources; differ: %v", len(a), len(b), !slices.Equal(a, b))
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 42 and 43 drew the same resources")
	}
}

// The reservoir is uniform: over many seeds, each of 100 resources is
// drawn about as often as any other (a chi-square test, fixed seeds), and
// the order in which candidates arrive does not change the sample.
func TestReservoirUniform(t *testing.T) {
	const pop, n, seeds = 100, 10, 4000
	uris := make([]string, pop)
	for i := range uris {
		uris[i] = fmt.Sprintf("http://example.org/res/%06d.html", i)
	}
	counts := make([]int, pop)
	shuffle := rand.New(rand.NewPCG(1, 2))
	for seed := range uint64(seeds) {
		r := newReservoir(n)
		order := shuffle.Perm(pop)
		for _, i := range order {
			if key := sampleKey(seed, uris[i]); r.wants(key) {
				r.offer(&item{rank: rank{key: key, index: i}})
			}
		}
		got := r.sample()
		if len(got) != n {
			t.Fatalf("seed %d: %d drawn", seed, len(got))
		}
		again := newReservoir(n)
		for i := range pop {
			again.offer(&item{rank: rank{key: sampleKey(seed, uris[i]), index: i}})
		}
		for j, it := range again.sample() {
			if it.rank != got[j].rank {
				t.Fatalf("seed %d: the order of arrival changed the sample", seed)
			}
		}
		for _, it := range got {
			counts[it.rank.index]++
		}
	}
	expected := float64(seeds * n / pop)
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (float64(c) - expected) * (float64(c) - expected) / expected
	}
	// 99 degrees of freedom: mean 99, standard deviation 14.
	if chi2 > 99+5*14 {
		t.Errorf("chi-square %.1f over %d resources: not uniform (counts %v)", chi2, pop, counts)
	}
}
