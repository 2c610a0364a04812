// Package suggest finds the name a mistyped one most likely meant: the
// "did you mean" of an unknown option, setting, action or key. It imports
// nothing of ours.
package suggest

import "strings"

// Nearest is the candidate that name most likely meant: the nearest by
// edit distance, at most 2 edits (or a third of the name's length for long
// names), or one that name begins (3 characters or more); "" when none is
// near. Ties go to the candidate first in sort order, so that the answer
// does not depend on the order of candidates.
func Nearest(name string, candidates []string) string {
	best, bestDist := "", 0
	limit := max(2, len(name)/3)
	for _, c := range candidates {
		d := Distance(name, c)
		if len(name) >= 3 && strings.HasPrefix(c, name) {
			d = min(d, 1)
		}
		if d <= limit && (best == "" || d < bestDist || d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes (the
// names compared are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
