//go:build race

package engine

// raceEnabled: the tests run under the race detector (go test -race),
// whose shadow memory and instrumentation make allocation and heap budgets
// meaningless and everything several times slower.
const raceEnabled = true
