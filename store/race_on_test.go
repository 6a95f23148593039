//go:build race

package store_test

// raceEnabled is set when the race detector is on; it allocates.
const raceEnabled = true
