package histories

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
)

// Read reads and pairs a whole history from r; name appears in errors. It
// decodes on every processor (see pipeline.go) and gives the same history
// and the same errors as reading with a Reader.
func Read(r io.Reader, name string) (*History, error) {
	return full(read(r, name, 0))
}

// ReadSerial is Read on one goroutine, with the Reader's small buffer:
// for a caller that reads many histories at once, one per processor (a
// sweep's runs), where Read's pipeline would only add its blocks and
// goroutines. It gives the same history and the same errors as Read.
func ReadSerial(r io.Reader, name string) (*History, error) {
	return readSequential(r, name)
}

// full is the history c in the full form.
func full(c *Compact, err error) (*History, error) {
	if err != nil {
		return nil, err
	}
	return c.History(), nil
}

// read is Read knowing the input's size, when total > 0.
func read(r io.Reader, name string, total int64) (*Compact, error) {
	if n := runtime.GOMAXPROCS(0); n > 1 {
		return readParallel(r, name, n, total)
	}
	return readCompact(NewReader(r, name), name)
}

// readSequential reads with a Reader, on one goroutine.
func readSequential(r io.Reader, name string) (*History, error) {
	return readWith(NewReader(r, name), name)
}

// readWith reads and pairs the events of rd.
func readWith(rd *Reader, name string) (*History, error) {
	return full(readCompact(rd, name))
}

// readCompact is readWith in the compact form.
func readCompact(rd *Reader, name string) (*Compact, error) {
	p := NewPairer()
	var e Event
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			c := p.FinishCompact()
			c.Truncated = rd.Partial()
			return c, nil
		}
		if err != nil {
			return nil, err
		}
		if err := p.add(&e, rd.Line()); err != nil {
			return nil, &LineError{File: name, Line: rd.Line(), Err: err}
		}
	}
}

// ReadFile reads and pairs the history at path.
func ReadFile(path string) (*History, error) {
	return full(ReadCompactFile(path))
}

// ReadCompactFile is ReadFile in the compact form: what a check of a large
// history holds in memory (see CompactOp).
func ReadCompactFile(path string) (*Compact, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", path, err)
	}
	defer f.Close()
	var total int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		total = st.Size()
	}
	return read(f, path, total)
}
