//go:build !race

package main

// raceEnabled says whether this test binary was built with -race; the
// fencecheck binary the end-to-end tests run is built the same way.
const raceEnabled = false
