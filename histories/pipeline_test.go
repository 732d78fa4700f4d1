package histories

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// sampleHistory writes a history of n operations by a few processes, with
// lease and nemesis events, unknown outcomes and reads of nothing.
func sampleHistory(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	var events []Event
	add := func(e Event) {
		e.Index, e.Time = FirstIndex+int64(len(events)), int64(10*len(events))
		events = append(events, e)
	}
	next := 4
	procs := []int{0, 1, 2, 3}
	for i := range n {
		k := r.IntN(len(procs))
		p := procs[k]
		res := fmt.Sprintf("r%d", r.IntN(3))
		if r.IntN(2) == 0 {
			value := fmt.Sprintf("v\"%d\\é", i)
			add(Event{Process: p, Type: TypeInvoke, F: FWrite, Resource: res, Token: uint64(i), HasToken: true, Value: value, HasValue: true})
			switch r.IntN(4) {
			case 0:
				add(Event{Process: p, Type: TypeInfo, F: FWrite, Resource: res})
				procs[k], next = next, next+1
			case 1:
				add(Event{Process: p, Type: TypeOK, F: FWrite, Resource: res, Token: uint64(i), HasToken: true, Outcome: Rejected})
			default:
				add(Event{Process: p, Type: TypeOK, F: FWrite, Resource: res, Token: uint64(i), HasToken: true, Value: value, HasValue: true, Outcome: Accepted})
			}
		} else {
			add(Event{Process: p, Type: TypeInvoke, F: FRead, Resource: res})
			add(Event{Process: p, Type: TypeOK, F: FRead, Resource: res, Value: fmt.Sprint(i - 1), HasValue: i%5 != 0, Token: uint64(i), HasToken: i%3 == 0})
		}
		if r.IntN(20) == 0 {
			add(Event{Process: -1, Actor: ActorNemesis, F: FStart, Fault: "pause", Detail: "worker 1"})
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, events); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// sameAsReader checks that the parallel reader, with blocks of every size
// in sizes, gives what the sequential reader gives.
func sameAsReader(t *testing.T, input []byte, sizes ...int) {
	t.Helper()
	want, wantErr := readSequential(bytes.NewReader(input), "h.jsonl")
	for _, size := range sizes {
		got, err := readBlocks(bytes.NewReader(input), "h.jsonl", 2, size, 0)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("block size %d: error %v, want %v", size, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("block size %d: history differs from the reader's", size)
		}
	}
}

func TestReadParallelMatchesReader(t *testing.T) {
	t.Parallel()
	history := sampleHistory(400, 1)
	lines := strings.SplitAfter(string(history), "\n")
	with := func(at int, line string) []byte {
		out := append(slices.Clone(lines[:at]), line)
		return []byte(strings.Join(append(out, lines[at:]...), ""))
	}
	tests := []struct {
		name  string
		input []byte
	}{
		{"valid", history},
		{"empty", nil},
		{"only blank lines", []byte("\n  \n\t\r\n")},
		{"blank lines between events", with(17, "\n   \n")},
		{"crlf line endings", []byte(strings.ReplaceAll(string(history), "\n", "\r\n"))},
		{"last line without newline", bytes.TrimSuffix(history, []byte("\n"))},
		{"partial last line", append(slices.Clone(history), `{"index":99999,"ti`...)},
		{"malformed line in the middle", with(123, "{\"index\":1,\n")},
		{"bad field in the middle", with(200, `{"index":100000,"time":1,"process":1,"type":"invoke","f":"write","resource":"r","token":-1,"value":"x"}`+"\n")},
		{"token out of range", with(5, `{"index":100000,"time":1,"process":1,"type":"invoke","f":"write","resource":"r","token":18446744073709551616,"value":"x"}`+"\n")},
		{"index out of range", with(5, `{"index":9223372036854775808,"time":1,"process":1,"type":"invoke","f":"read","resource":"r"}`+"\n")},
		{"pairing error", with(300, `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`+"\n")},
		{"malformed partial last line after a pairing error", append(with(300, `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`+"\n"), `{"ind`...)},
		{"garbage", []byte("not json\n{}\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sameAsReader(t, tc.input, 1, 7, 64, 100, 4096, blockBytes)
		})
	}
}

func TestReadParallelValues(t *testing.T) {
	t.Parallel()
	h, err := readBlocks(bytes.NewReader(sampleHistory(50, 2)), "h", 2, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range operations(h) {
		if op.IsWrite() && !strings.HasPrefix(op.Value, "v\"") {
			t.Fatalf("write value %q lost its escapes or its bytes", op.Value)
		}
	}
}

func TestReadParallelLongLine(t *testing.T) {
	t.Parallel()
	long := append([]byte(`{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","detail":"`), bytes.Repeat([]byte("x"), lineLimit)...)
	long = append(long, "\"}\n"...)
	_, err := readBlocks(bytes.NewReader(append(sampleHistory(3, 3), long...)), "h", 2, blockBytes, 0)
	var le *lineError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "line longer than") {
		t.Fatalf("error %v, want a line too long", err)
	}
	_, seqErr := readSequential(bytes.NewReader(append(sampleHistory(3, 3), long...)), "h")
	if fmt.Sprint(err) != fmt.Sprint(seqErr) {
		t.Fatalf("error %v, the reader says %v", err, seqErr)
	}
}

func TestReadParallelIOError(t *testing.T) {
	t.Parallel()
	history := sampleHistory(200, 4)
	for _, cut := range []int{0, 1, 100, len(history) / 2} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			t.Parallel()
			broken := func() *failingReader { return &failingReader{data: history[:cut]} }
			want, wantErr := readSequential(broken(), "h")
			got, err := readBlocks(broken(), "h", 2, 64, 0)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v, the reader gives %v", err, wantErr)
			}
			if !errors.Is(err, errBroken) {
				t.Fatalf("error %v does not wrap the read error", err)
			}
		})
	}
}

var errBroken = errors.New("disk on fire")

// failingReader returns its data in small pieces, then errBroken.
type failingReader struct{ data []byte }

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, errBroken
	}
	n := copy(p[:min(len(p), 37)], f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadParallelSlowReader(t *testing.T) {
	t.Parallel()
	history := sampleHistory(100, 5)
	want, _ := readSequential(bytes.NewReader(history), "h")
	got, err := readBlocks(iotest.OneByteReader(bytes.NewReader(history)), "h", 2, 50, 0)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("one byte at a time: %v", err)
	}
}

// FuzzReadParallelMatchesReader reads each input with both readers, the
// parallel one with blocks of 1 to 256 bytes, so that block boundaries
// fall everywhere in small inputs, and the reader with a buffer of 16 to
// 271 bytes, so that lines longer than its buffer are joined from pieces.
// Neither size changes what a reader returns, and small ones keep each
// execution cheap: a the reader's default buffer is a megabyte.
func FuzzReadParallelMatchesReader(f *testing.F) {
	f.Add(sampleHistory(5, 1), uint8(16))
	f.Add([]byte("{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\"}\n\n{"), uint8(3))
	f.Add([]byte("\n\n\n"), uint8(1))
	f.Fuzz(func(t *testing.T, input []byte, size uint8) {
		want, wantErr := readWith(newReaderSize(bytes.NewReader(input), "h", 16+int(size)), "h")
		got, err := readBlocks(bytes.NewReader(input), "h", 2, 1+int(size), 0)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, the reader says %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatal("history differs from the reader's")
		}
	})
}

func TestPairProcessIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		process int
	}{
		{"small", 3},
		{"large", denseLimit + 5},
		{"negative", -2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.process
			events := []Event{
				{Index: 0, Process: p, Type: TypeInvoke, F: FWrite, Resource: "r", Token: 1, HasToken: true, Value: "a", HasValue: true},
				{Index: 1, Process: p, Type: TypeInfo, F: FWrite, Resource: "r"},
				{Index: 2, Process: p, Type: TypeInvoke, F: FRead, Resource: "r"},
			}
			if _, err := Pair(events); err == nil || !strings.Contains(err.Error(), "reused after its unknown outcome at index 1") {
				t.Fatalf("reusing a retired process: error %v", err)
			}
			events[1] = Event{Index: 1, Process: p, Type: TypeOK, F: FWrite, Resource: "r", Outcome: Accepted}
			h, err := Pair(events)
			if err != nil || len(operations(h)) != 2 || operations(h)[0].Status != StatusAccepted {
				t.Fatalf("pairing: %v, %+v", err, h)
			}
			if _, err := Pair(append(events, Event{Index: 3, Process: p, Type: TypeInvoke, F: FRead, Resource: "r"})); err == nil || !strings.Contains(err.Error(), "still in flight") {
				t.Fatalf("two operations in flight: error %v", err)
			}
		})
	}
}

func TestReadFileMatchesReader(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 10, 20000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			history := sampleHistory(n, 6)
			path := filepath.Join(schema.TempDir(t), "h.jsonl")
			if err := os.WriteFile(path, history, 0o644); err != nil {
				t.Fatal(err)
			}
			want, wantErr := readSequential(bytes.NewReader(history), path)
			got, err := Read(t.Context(), Source{Path: path})
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("Read: %v, reader: %v, same history: %v", err, wantErr, reflect.DeepEqual(got, want))
			}
		})
	}
}

// TestReadSerialIsRead: a Serial read, as a sweep reads, gives what Read
// gives on every processor, history and errors alike.
func TestReadSerialIsRead(t *testing.T) {
	t.Parallel()
	for _, input := range [][]byte{sampleHistory(5, 1), sampleHistory(200, 3), []byte("{\"index\":0,\"time\":0}\n{")} {
		want, wantErr := Read(t.Context(), Source{Path: "h", Reader: bytes.NewReader(input)})
		got, err := Read(t.Context(), Source{Path: "h", Reader: bytes.NewReader(input), Serial: true})
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, Read says %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatal("history differs from Read's")
		}
	}
}
