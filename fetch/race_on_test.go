//go:build race

package fetch

// raceEnabled: the tests run under the race detector (go test -race),
// whose instrumentation makes everything several times slower: timing
// bounds that tell a fast path from a throttled one do not hold.
const raceEnabled = true
