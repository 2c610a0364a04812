//go:build !race

package fetch

// raceEnabled: the tests run under the race detector (race_on_test.go).
const raceEnabled = false
