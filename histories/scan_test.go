package histories

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// scanSeeds are lines in the form the fast path reads, and lines a byte
// away from it, which it must leave to the general decoder.
func scanSeeds() []string {
	seeds := []string{
		`{"index":1,"time":11,"process":36,"type":"invoke","f":"read","resource":"r0"}`,
		`{"index":4,"time":38,"process":5,"type":"invoke","f":"write","resource":"r0","token":1,"value":"r0-v3"}`,
		`{"index":6,"time":42,"process":4,"type":"info","f":"write","resource":"r0"}`,
		`{"index":100002,"time":1197939,"process":2321,"type":"ok","f":"read","resource":"r0","value":"r0-v50004"}`,
		`{"index":400002,"time":4790619,"process":9794,"type":"ok","f":"read","resource":"r0","token":29877,"value":"r0-v199989"}`,
		`{"index":500002,"time":5990177,"process":12489,"type":"ok","f":"write","resource":"r0","token":37396,"value":"r0-v249977","outcome":"rejected"}`,
		`{"index":7,"time":8,"process":2,"type":"ok","f":"read","resource":"r","value":null}`,
		`{"index":7,"time":8,"process":2,"type":"ok","f":"read","resource":"r","value":""}`,
		`{"index":9,"time":9,"process":1,"type":"fail","f":"write","resource":"r","error":"status 503"}`,
		`{"index":9,"time":9,"process":1,"type":"invoke","f":"write","resource":"r","token":2,"value":"v","trace":"4bf92f3577b34da6a3ce929d0e0e4736"}`,
		`{"index":999999999999999999,"time":999999999999999999,"process":999999999999999999,"type":"invoke","f":"write","resource":"r","token":999999999999999999,"value":"v"}`,
		`{"index":9223372036854775807,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`,
		`{"index":01,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":""}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r"}`,
		`{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","outcome":"accepted"}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":"00000000000000000000000000000000"}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r\u0030"}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"é"}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"} `,
		`{"index":0,"time":0,"actor":"lease","f":"acquire","resource":"r","token":41,"holder":0}`,
		`{"index":0,"time":0,"actor":"harness","f":"header","format":1}`,
	}
	for _, e := range encoderEvents() {
		seeds = append(seeds, strings.TrimSuffix(string(AppendJSON(nil, &e)), "\n"))
	}
	return seeds
}

// FuzzScanMatchesDecode checks the fast path against the general decoder:
// a line the fast path reads, the general decoder reads as the same
// event; and the fast path reads only whole lines, up to their first
// newline. FuzzDecodeMatchesJSON checks both against encoding/json, as
// decodeLine takes the fast path where it can.
func FuzzScanMatchesDecode(f *testing.F) {
	for _, line := range scanSeeds() {
		f.Add([]byte(line + "\n"))
		f.Add([]byte(line + "\n" + line + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := scanMatchesDecode(data); err != nil {
			t.Fatal(err)
		}
	})
}

// scanMatchesDecode says how the fast path and the general decoder
// disagree on the line at the start of data, if they do, with values as
// strings and in a batch.
func scanMatchesDecode(data []byte) error {
	var fast, batched, general Event
	d := newDecoder()
	n := d.scan(data, &fast, false)
	if whole := d.scan(data, new(Event), true); whole != 0 && whole != len(data) {
		return fmt.Errorf("scan of the whole of %q read %d bytes", data, whole)
	}
	if n == 0 {
		return nil
	}
	if i := bytes.IndexByte(data, '\n'); i != n-1 {
		return fmt.Errorf("scan of %q read %d bytes, its first line has %d", data, n, i+1)
	}
	line := data[:n]
	if err := newDecoder().decodeGeneral(line, &general); err != nil {
		return fmt.Errorf("scan read %q, which the general decoder refuses: %v", line, err)
	}
	if !reflect.DeepEqual(fast, general) {
		return fmt.Errorf("%q: scan reads %+v, the general decoder %+v", line, fast, general)
	}
	b := block{data: data}
	b.values.event = 0
	d.values = &b.values
	if d.scan(data, &batched, false) != n {
		return fmt.Errorf("%q: batching changes what scan reads", line)
	}
	b.events = append(b.events, batched)
	b.setValues()
	if !reflect.DeepEqual(b.events[0], general) {
		return fmt.Errorf("%q: scan into a batch reads %+v, the general decoder %+v", line, b.events[0], general)
	}
	return nil
}

// TestScanReadsWhatAppendJSONWrites: the fast path reads every client
// event the encoder writes with plain strings, and leaves the others to
// the general decoder.
func TestScanReadsWhatAppendJSONWrites(t *testing.T) {
	t.Parallel()
	for _, line := range scanSeeds() {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			if err := scanMatchesDecode([]byte(line + "\n" + line + "\n")); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, e := range encoderEvents() {
		line := AppendJSON(nil, &e)
		plain := !bytes.ContainsAny(line, `\`) && bytes.IndexFunc(line, func(r rune) bool { return r >= 0x80 }) < 0
		want := e.isClient() && plain
		if got := newDecoder().scan(line, new(Event), true) == len(line); got != want {
			t.Errorf("%s: fast path %v, want %v", line, got, want)
		}
	}
}

// TestReadWithScanMatchesGeneralDecoder: Read, whose blocks take the fast
// path and batch their values, gives the history that decoding every line
// with the general decoder and pairing gives.
func TestReadWithScanMatchesGeneralDecoder(t *testing.T) {
	t.Parallel()
	lines := goodLines(3000)
	lines[100] = strings.Replace(lines[100], `"value":`, `"value" :`, 1) // one line for the general decoder
	input := []byte(strings.Join(lines, "\n") + "\n")
	var p pairer
	for i, line := range lines {
		var e Event
		if err := newDecoder().decodeGeneral([]byte(line), &e); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if err := p.add(&e, i+1); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	want := p.finish()
	for _, size := range []int{1, 100, 4096, blockBytes} {
		got, err := readBlocks(bytes.NewReader(input), "h.jsonl", 2, size, 0)
		if err != nil {
			t.Fatalf("block size %d: %v", size, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("block size %d: history differs from the general decoder's", size)
		}
	}
}

// TestScanDigits: the digits of every length are read in words and one
// by one alike, and what JSON or the format forbids is left to the
// general decoder.
func TestScanDigits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0,", 0, true}, {"7}", 7, true}, {"12,", 12, true}, {"1234567,", 1234567, true},
		{"12345678,", 12345678, true}, {"123456789,", 123456789, true},
		{"999999999999999999,", 999999999999999999, true}, {"1000000000000000000,", 0, false},
		{"01,", 0, false}, {"00000000000,", 0, false}, {"0", 0, true}, {",", 0, false},
		{"-1,", 0, false}, {"1.5,", 1, true}, {"9\xff", 9, true}, {"12345678", 12345678, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			// Padded, so that the word path reads it, and not.
			for _, data := range []string{tc.in + "          ", tc.in} {
				n, _, ok := scanDigits([]byte(data), 0)
				if ok != tc.ok || ok && n != tc.want {
					t.Errorf("scanDigits(%q) = %d, %v; want %d, %v", data, n, ok, tc.want, tc.ok)
				}
			}
		})
	}
}

// TestScanPlain: scanPlain finds the first byte that is not plain in a
// string, in words and one by one alike.
func TestScanPlain(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		for at := range 12 {
			data := []byte(strings.Repeat("a", at) + string(rune(0)) + "bbbbbbbbbbbbbbbb\"")
			data[at] = byte(c)
			end, ok := scanPlain(data, 0)
			want := at
			if plain[c] {
				want = len(data) - 1
			}
			if end != want || ok != (data[want] == '"') {
				t.Fatalf("byte %#x at %d: scanPlain = %d, %v; want %d", c, at, end, ok, want)
			}
		}
	}
}
