package histories

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
)

// Read reads and pairs a whole history from r; name appears in errors,
// which say where, as name:line: what is wrong. It decodes on every
// processor (see pipeline.go) and gives the same history and the same
// errors as reading line by line on one goroutine.
func Read(r io.Reader, name string) (*History, error) {
	return read(r, name, 0)
}

// ReadSerial is Read on one goroutine, with a small buffer: for a caller
// that reads many histories at once, one per processor (a sweep's runs),
// where Read's pipeline would only add its blocks and goroutines. It
// gives the same history and the same errors as Read.
func ReadSerial(r io.Reader, name string) (*History, error) {
	return readSequential(r, name)
}

// ReadFile reads and pairs the history at path.
func ReadFile(path string) (*History, error) {
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

// read is Read knowing the input's size, when total > 0.
func read(r io.Reader, name string, total int64) (*History, error) {
	if n := runtime.GOMAXPROCS(0); n > 1 {
		return readParallel(r, name, n, total)
	}
	return readSequential(r, name)
}

// readSequential reads with a reader, on one goroutine.
func readSequential(r io.Reader, name string) (*History, error) {
	return readWith(newReader(r, name), name)
}

// readWith reads and pairs the events of rd.
func readWith(rd *reader, name string) (*History, error) {
	var p pairer
	var e Event
	for {
		err := rd.next(&e)
		if errors.Is(err, io.EOF) {
			h := p.finish()
			h.Truncated = rd.partial()
			return h, nil
		}
		if err != nil {
			return nil, err
		}
		if err := p.add(&e, rd.line()); err != nil {
			return nil, &lineError{file: name, line: rd.line(), err: err}
		}
	}
}
