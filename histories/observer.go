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
// map lookup), must not call the Recorder, and must neither keep nor
// change e.
type Observer interface {
	Observe(e *Event)
}
