package histories

import (
	"bufio"
	"fmt"
	"io"
)

// Write writes a history to w: the header (Header), then events,
// renumbering nothing: callers that build histories by hand set Index and
// Time themselves, numbering events from FirstIndex, as the header takes
// index 0. Events that begin with a header, as a file read back event by
// event does, are written as they are.
func Write(w io.Writer, events []Event) error {
	var buf []byte
	if len(events) == 0 || !events[0].isHeader() {
		if len(events) > 0 && events[0].Index < FirstIndex {
			return fmt.Errorf("write history: the first event has index %d, but the header takes index 0: number events from %d", events[0].Index, FirstIndex)
		}
		header := Header()
		buf = AppendJSON(buf, &header)
	}
	bw := bufio.NewWriter(w)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	for i := range events {
		buf = AppendJSON(buf[:0], &events[i])
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
