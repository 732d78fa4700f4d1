package histories

// Observer sees each event as a Recorder records it, for a live view of a
// run (counters a dashboard scrapes) that needs neither the file nor a
// second reader of it.
//
// Record calls Observe under its lock, after it stamped the event's index
// and time: one event at a time, in index order, so an observer sees the
// events exactly as the history holds them (a stale write is judged
// against the completions recorded before its invocation, and that order
// is the file's order, not the order goroutines return from Record).
// Being on every event's path, Observe must be quick (an atomic add, a
// map lookup) and must not call the Recorder.
//
// It takes the event by value: a pointer passed through an interface
// escapes, and every caller's event would then be allocated on the heap
// (3 more allocations per operation in BenchmarkHarness, with no
// observer set).
type Observer interface {
	Observe(e Event)
}
