//go:build !race

package store

// raceEnabled: the tests run under the race detector (race_on_test.go).
const raceEnabled = false
