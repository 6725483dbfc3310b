//go:build race

package main

// raceEnabled: the race detector's shadow memory needs more address space
// than the corpus test's child limit allows.
const raceEnabled = true
