// Package explore runs many seeded runs of one configuration and judges
// them together: a sweep. A run is one sample of the receiver's
// behaviour (one seed, one fault mix, one interleaving); a sweep of
// thousands of seeds explores, and stops at the first seed that breaks
// the receiver with that seed's minimal counterexample and the command
// that repeats it.
//
// In the deterministic simulation (harness.Config.Deterministic) a run
// is a function of its seed, so the sweep runs several at once, one per
// processor, each against a receiver of its own, and the failing seed's
// run repeats byte for byte. Runs on the real clock are samples of the
// real scheduler and network; a sweep of them runs one at a time unless
// told otherwise, and each run names its resources afresh
// (harness/resources.go), so that runs sharing a receiver do not meet.
//
// Only runs that found a violation are stored in full
// (harness.KeepViolations); every seed is one line of the sweep's log,
// sweep.jsonl. With Swarm, each seed also draws the configuration it runs
// with (swarm.go), and the draw is part of its reproduction.
//
// The sweep's verdict (verdict.go) is a violation when any seed violated;
// a pass only when some seed held and the runs together exercised the
// hazards of the faults they drew; otherwise inconclusive.
package explore
