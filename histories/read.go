package histories

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
)

// Source is one history for Read: the file at Path, or, when Reader is
// set, the stream Reader gives, which Path then names in errors.
type Source struct {
	Path   string
	Reader io.Reader
	// Serial reads on the calling goroutine, with a small buffer: for a
	// caller that reads many histories at once, one per processor (a
	// sweep's runs), where Read's pipeline would only add its blocks and
	// goroutines. It gives the same history and the same errors.
	Serial bool
}

// Read reads and pairs the history of each source and, when there are
// several, joins them into one as fencecheck check judges several files:
// end to end, each part named by its Path, History.Parts saying where
// each went (see join). Errors say where, as path:line: what is wrong.
// A history is decoded on every processor (see pipeline.go), unless
// Serial, with the same history and the same errors as reading line by
// line on one goroutine.
//
// When ctx is done first, Read returns ctx's error at once and leaves the
// file being read to be read to its end on its own, as a read cannot be
// stopped: for a caller about to give up, such as a command that is
// interrupted. A Reader is not left behind: it is read to its end before
// Read returns, as the caller may use it again.
func Read(ctx context.Context, sources ...Source) (*History, error) {
	if len(sources) == 1 {
		return readSource(ctx, sources[0])
	}
	parts := make([]part, len(sources))
	for i, s := range sources {
		h, err := readSource(ctx, s)
		if err != nil {
			return nil, err
		}
		parts[i] = part{Name: s.Path, History: h}
	}
	h, placed, err := join(parts)
	if err != nil {
		return nil, err
	}
	h.Parts = placed
	return h, nil
}

// readSource reads one source, returning when ctx is done.
func readSource(ctx context.Context, s Source) (*History, error) {
	if s.Reader != nil {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("read %s: %w", s.Path, err)
		}
		if s.Serial {
			return readSequential(s.Reader, s.Path)
		}
		return read(s.Reader, s.Path, 0)
	}
	if ctx.Done() == nil {
		return readFile(s.Path, s.Serial)
	}
	type result struct {
		h   *History
		err error
	}
	done := make(chan result, 1)
	go func() {
		h, err := readFile(s.Path, s.Serial)
		done <- result{h, err}
	}()
	select {
	case r := <-done:
		return r.h, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("read %s: %w", s.Path, ctx.Err())
	}
}

// readFile reads and pairs the history at path.
func readFile(path string, serial bool) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", path, err)
	}
	defer f.Close()
	if serial {
		return readSequential(f, path)
	}
	var total int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		total = st.Size()
	}
	return read(f, path, total)
}

// read reads r knowing the input's size, when total > 0.
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
