package histories

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Read reads and pairs a whole history from r; name appears in errors.
func Read(r io.Reader, name string) (*History, error) {
	rd := NewReader(r, name)
	p := NewPairer()
	var e Event
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			h := p.Finish()
			h.Truncated = rd.Partial()
			return h, nil
		}
		if err != nil {
			return nil, err
		}
		if err := p.Add(&e); err != nil {
			return nil, &LineError{File: name, Line: rd.Line(), Err: err}
		}
	}
}

// ReadFile reads and pairs the history at path.
func ReadFile(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", path, err)
	}
	defer f.Close()
	return Read(f, path)
}
