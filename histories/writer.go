package histories

import (
	"bufio"
	"io"

	"github.com/fencecheck/fencecheck/internal/files"
)

// Write writes events to w in the history format, renumbering nothing:
// callers that build histories by hand set Index and Time themselves.
func Write(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := range events {
		buf = AppendJSON(buf[:0], &events[i])
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFile writes events to the file at path, replacing it.
func WriteFile(path string, events []Event) error {
	return files.Write(path, "history", func(w io.Writer) error { return Write(w, events) })
}
