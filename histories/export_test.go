package histories

import (
	"bytes"
	"io"
)

// BlockDecoder decodes as one worker of Read does, block by block on the
// calling goroutine, without pairing, keeping its decoder and its block
// from one call to the next as a worker keeps its decoder and reuses the
// blocks the pairer is done with. BenchmarkReadFloor measures the decoder
// with it.
type BlockDecoder struct {
	dec *decoder
	b   block
}

// NewBlockDecoder returns a BlockDecoder.
func NewBlockDecoder() *BlockDecoder { return &BlockDecoder{dec: newDecoder()} }

// Decode decodes data and returns the number of events in it.
func (d *BlockDecoder) Decode(data []byte) (int, error) {
	events := 0
	for len(data) > 0 {
		n := len(data)
		if n > blockBytes {
			n = blockBytes + bytes.IndexByte(data[blockBytes:], '\n') + 1
			if n <= blockBytes {
				n = len(data)
			}
		}
		b := &d.b
		*b = block{data: data[:n], events: b.events[:0], lines: b.lines[:0],
			values: valueBatch{bytes: b.values.bytes[:0], spans: b.values.spans[:0]}}
		data = data[n:]
		b.decode(d.dec)
		if b.err != nil {
			return events, b.err
		}
		events += len(b.events)
	}
	return events, nil
}

// ReadSized is Read knowing the input's size, as Read reads a file.
func ReadSized(r io.Reader, name string, size int64) (*History, error) {
	return read(r, name, size)
}

// Join and Part let the tests of joining lay histories built in memory
// end to end, as Read lays the files it reads.
var Join = join

type Part = part

// operations returns h's operations in the full form, for the tests that
// look at them.
func operations(h *History) []Operation { return h.Expand(nil) }
