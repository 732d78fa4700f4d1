package histories

import (
	"bufio"
	"fmt"
	"io"
	"os"
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
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create history %s: %w", path, err)
	}
	if err := Write(f, events); err != nil {
		f.Close()
		return fmt.Errorf("write history %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close history %s: %w", path, err)
	}
	return nil
}
