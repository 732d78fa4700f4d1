package histories

// formatVersion is the version of the history format this package writes
// and the newest it reads. It goes up when a history written now could be
// misread by a reader that knows only the older format (a field whose
// meaning changed, a rule a checker relies on); fields added so that older
// readers may skip them do not change it (see docs/history-format.md).
const formatVersion = 1

// fHeader is the function of the header, the harness's first event of
// every history fencecheck writes: it says which version of the format
// the file is in (Event.Format), so that a reader can refuse a file it
// would misread instead of judging it. A file without one is format 0,
// the format before headers, and reads as before.
const fHeader = "header"

// FirstIndex is the index of the first event after the header: the header
// takes index 0, so that an event's index stays its line number minus one.
const FirstIndex = 1

// headerDetail tells a person who opens the file what it is. It is the
// same in every build, so that deterministic runs stay byte-identical.
const headerDetail = "fencecheck history; the format: docs/history-format.md"

// Header returns the header event, at index 0 and time 0: the first line
// of a history. Recorder and Write put it there. Its Format is the version
// of the format this package writes, and the newest it reads.
func Header() Event {
	return Event{Index: 0, Time: 0, Process: -1, Actor: actorHarness, F: fHeader, Format: formatVersion, Detail: headerDetail}
}

// isHeader reports whether e is a history's header.
func (e *Event) isHeader() bool { return e.Actor == actorHarness && e.F == fHeader }

// checkFormat is the decoder's test of a header's format field: a version
// this package reads. A newer one is refused, not skipped: the reader
// cannot know what in the file it would misread.
func checkFormat(n int64) error {
	switch {
	case n < 1:
		return fieldErr("format", "%d is not a format version (headers begin at 1; a file without a header is format 0)", n)
	case n > formatVersion:
		return fieldErr("format", "%d is newer than this fencecheck reads (up to %d): read the file with a newer fencecheck", n, formatVersion)
	}
	return nil
}

// header takes a history's header: it must come first, before every
// other event, and the events after it must have higher indexes.
func (p *pairer) header(e *Event) error {
	if p.anyEvent {
		return fieldErr("f", "a header after the event at index %d: the header must be the first line of a history", p.lastIndex)
	}
	p.anyEvent, p.lastIndex, p.lastTime, p.c.Format = true, e.Index, e.Time, int(e.Format)
	return nil
}
