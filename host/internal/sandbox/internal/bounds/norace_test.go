//go:build !race

package bounds_test

// raceEnabled is set when the tests run with the race detector.
const raceEnabled = false
