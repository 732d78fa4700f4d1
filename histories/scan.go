package histories

import (
	"encoding/binary"
	"math/bits"
)

// The fast path of the decoder. Nearly every line of a history is a client
// event as AppendJSON writes it: the fields in one order, no spaces, short
// ASCII strings without escapes. scan reads exactly such a line by
// matching the field names as literals and the values with tight loops,
// without the general decoder's per-field dispatch; any other line, or
// anything unusual in one (an escape, a byte beyond ASCII, a leading zero,
// a space, a field out of order, a number of 19 digits or more, an error
// the line's fields would cause), makes it give up, and the general
// decoder reads the line from its start. So the fast path decides nothing
// the general decoder would decide differently: it accepts a subset of
// what decodeLine accepts and gives the same event (FuzzScanMatchesDecode).
//
// It pays in BenchmarkReadFloor/decode: see docs/performance.md "Reading".

// scan decodes the line at the start of data into e when it has the form
// AppendJSON writes for a client event, and returns its length with the
// newline; 0 when the general decoder must read it. With whole, the line
// must be all of data. It adds the event's value to d.values, when
// batching, only when it returns the line's length.
//
//	{"index":N,"time":N,"process":N,"type":T,"f":F,"resource":S[,"token":N][,"value":S|null][,"outcome":O][,"error":S][,"trace":S]}\n
func (d *decoder) scan(data []byte, e *Event, whole bool) int {
	var (
		ok       bool
		n        uint64
		pos      int
		seen     = seenIndex | seenTime | seenProcess | seenType | seenF | seenResource
		valStart = -1
		valEnd   int
	)
	if !litIndex.at(data, 0) {
		return 0
	}
	*e = Event{}
	if n, pos, ok = scanDigits(data, len(litIndex.text)); !ok || !litTime.at(data, pos) {
		return 0
	}
	e.Index = int64(n)
	if n, pos, ok = scanDigits(data, pos+len(litTime.text)); !ok || !litProcess.at(data, pos) {
		return 0
	}
	e.Time = int64(n)
	if n, pos, ok = scanDigits(data, pos+len(litProcess.text)); !ok || !litType.at(data, pos) {
		return 0
	}
	e.Process = int(n)
	if e.Type, pos = scanType(data, pos+len(litType.text)); e.Type == typeNone {
		return 0
	}
	if e.F, pos, ok = either(data, pos, &litRead, FRead, &litWrite, FWrite); !ok {
		return 0
	}
	if !litResource.at(data, pos) {
		return 0
	}
	start := pos + len(litResource.text)
	if pos, ok = scanPlain(data, start); !ok || pos == start {
		return 0
	}
	e.Resource = d.internAt(data, start, pos)
	pos++
	if litToken.at(data, pos) {
		if n, pos, ok = scanDigits(data, pos+len(litToken.text)); !ok {
			return 0
		}
		e.Token, e.HasToken, seen = n, true, seen|seenToken
	}
	if litValue.at(data, pos) {
		pos += len(litValue.text)
		seen |= seenValue
		switch {
		case litNull.at(data, pos):
			pos += len(litNull.text)
		case pos < len(data) && data[pos] == '"':
			valStart = pos + 1
			if valEnd, ok = scanPlain(data, valStart); !ok {
				return 0
			}
			e.HasValue, pos = true, valEnd+1
		default:
			return 0
		}
	}
	if litOutcome.at(data, pos) {
		pos += len(litOutcome.text)
		if e.Outcome, pos, ok = either(data, pos, &litAccepted, Accepted, &litRejected, Rejected); !ok {
			return 0
		}
		seen |= seenOutcome
	}
	if litError.at(data, pos) {
		start := pos + len(litError.text)
		if pos, ok = scanPlain(data, start); !ok {
			return 0
		}
		e.Error, pos, seen = string(data[start:pos]), pos+1, seen|seenError
	}
	if litTrace.at(data, pos) {
		start := pos + len(litTrace.text)
		if pos, ok = scanPlain(data, start); !ok {
			return 0
		}
		trace, err := traceID(data[start:pos])
		if err != nil {
			return 0
		}
		e.Trace, pos, seen = trace, pos+1, seen|seenTrace
	}
	if !litEnd.at(data, pos) || whole && pos+len(litEnd.text) != len(data) {
		return 0
	}
	d.seen = seen
	if d.finish(e) != nil {
		return 0
	}
	if valStart >= 0 {
		e.Value = d.keepValue(data[valStart:valEnd])
	}
	return pos + len(litEnd.text)
}

// The literals scan matches, in the order AppendJSON writes them.
var (
	litIndex    = lit(`{"index":`)
	litTime     = lit(`,"time":`)
	litProcess  = lit(`,"process":`)
	litType     = lit(`,"type":"`)
	litOK       = lit(`ok"`)
	litInvoke   = lit(`invoke"`)
	litInfo     = lit(`info"`)
	litFail     = lit(`fail"`)
	litRead     = lit(`","f":"read",`)
	litWrite    = lit(`","f":"write",`)
	litResource = lit(`"resource":"`)
	litToken    = lit(`,"token":`)
	litValue    = lit(`,"value":`)
	litNull     = lit(`null`)
	litOutcome  = lit(`,"outcome":"`)
	litAccepted = lit(`accepted"`)
	litRejected = lit(`rejected"`)
	litError    = lit(`,"error":"`)
	litTrace    = lit(`,"trace":"`)
	litEnd      = lit("}\n")
)

// literal is a text scan matches: a field name with its punctuation, or
// a word. at compares it with whole words: comparing a constant string
// with a slice of bytes calls memequal, which took a sixth of
// BenchmarkReadFloor/decode.
type literal struct {
	text     string
	lo, mask uint64 // the first 8 bytes, fewer when text is shorter
	hi       uint64 // the last 8 bytes, when text is longer than 8
}

func lit(text string) literal {
	if len(text) > 16 {
		panic("histories: literal longer than 16 bytes: " + text)
	}
	var b [16]byte
	copy(b[:], text)
	l := literal{text: text, lo: binary.LittleEndian.Uint64(b[:]), mask: 1<<(8*min(len(text), 8)) - 1}
	if len(text) > 8 {
		l.hi = binary.LittleEndian.Uint64([]byte(text[len(text)-8:]))
	}
	return l
}

// at reports whether data holds l at pos.
func (l *literal) at(data []byte, pos int) bool {
	if len(data)-pos < 16 {
		return len(data)-pos >= len(l.text) && string(data[pos:pos+len(l.text)]) == l.text
	}
	return binary.LittleEndian.Uint64(data[pos:])&l.mask == l.lo &&
		(len(l.text) <= 8 || binary.LittleEndian.Uint64(data[pos+len(l.text)-8:]) == l.hi)
}

// either matches a or b at pos, and returns the value that goes with the
// one that matched and the position after it.
func either[T any](data []byte, pos int, a *literal, va T, b *literal, vb T) (T, int, bool) {
	switch {
	case a.at(data, pos):
		return va, pos + len(a.text), true
	case b.at(data, pos):
		return vb, pos + len(b.text), true
	}
	var none T
	return none, pos, false
}

// maxScanDigits is the most digits scanDigits reads: any 18 digits fit in
// an int64, so it needs no overflow test.
const maxScanDigits = 18

// scanDigits reads a JSON integer of at most maxScanDigits digits at pos,
// without a leading zero, and returns it and the position after it. It
// converts the first eight digits at once, in one word (SWAR), and the
// rest one by one: a loop over each digit, with its exit mispredicted at
// every length, took an eighth of BenchmarkReadFloor/decode.
func scanDigits(data []byte, pos int) (uint64, int, bool) {
	start := pos
	var n uint64
	if len(data)-pos >= 8 {
		w := binary.LittleEndian.Uint64(data[pos:])
		k := bits.TrailingZeros64(nonDigits(w)) / 8
		if k == 0 {
			return 0, pos, false
		}
		n, pos = eightDigits(w<<(64-8*k)), pos+k
		if k < 8 {
			return n, pos, k == 1 || data[start] != '0'
		}
	}
	for pos < len(data) {
		c := data[pos] - '0'
		if c > 9 {
			break
		}
		n = n*10 + uint64(c)
		pos++
	}
	switch digits := pos - start; {
	case digits == 0, digits > maxScanDigits:
		return 0, pos, false
	case digits > 1 && data[start] == '0':
		return 0, pos, false
	}
	return n, pos, true
}

// nonDigits has the high bit set in each byte of w that is no ASCII
// digit: one whose high nibble is not 3, or whose low nibble is above 9
// (adding 6 carries it out of the 3). Above the lowest such byte a carry
// may mark digits too; callers look only at the lowest.
func nonDigits(w uint64) uint64 {
	const (
		high  = 0xF0F0F0F0F0F0F0F0
		three = 0x3030303030303030
		six   = 0x0606060606060606
	)
	x := (w&high ^ three) | ((w+six)&high ^ three)
	// A byte of x is non-zero where w's is no digit; move that to its
	// high bit.
	return (x | x<<1 | x<<2 | x<<3) & 0x8080808080808080
}

// eightDigits converts the ASCII digits in the bytes of w, the first in
// the lowest byte, to their number; zero bytes count as leading zeros.
func eightDigits(w uint64) uint64 {
	w = (w & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8
	w = (w & 0x00FF00FF00FF00FF) * 6553601 >> 16
	return (w & 0x0000FFFF0000FFFF) * 42949672960001 >> 32
}

// scanType reads an event type and its closing quote at pos, and returns
// the type (typeNone when it is none of the four) and the position of the
// quote.
func scanType(data []byte, pos int) (Type, int) {
	switch {
	case litOK.at(data, pos):
		return TypeOK, pos + len(`ok`)
	case litInvoke.at(data, pos):
		return TypeInvoke, pos + len(`invoke`)
	case litInfo.at(data, pos):
		return TypeInfo, pos + len(`info`)
	case litFail.at(data, pos):
		return TypeFail, pos + len(`fail`)
	}
	return typeNone, pos
}

// scanPlain steps over the characters of a string that stand for
// themselves (plain) from pos and returns the position of its closing
// quote; false when it meets anything else first: an escape, a control
// character, a byte beyond ASCII, or the end of data. It tests eight
// bytes at a time (special) where eight remain.
func scanPlain(data []byte, pos int) (int, bool) {
	for len(data)-pos >= 8 {
		if m := special(binary.LittleEndian.Uint64(data[pos:])); m != 0 {
			pos += bits.TrailingZeros64(m) / 8
			return pos, data[pos] == '"'
		}
		pos += 8
	}
	for pos < len(data) {
		c := data[pos]
		if !plain[c] {
			return pos, c == '"'
		}
		pos++
	}
	return pos, false
}

// special has the high bit set in the lowest byte of w that is not plain
// in a string (a quote, a backslash, a control character or a byte beyond
// ASCII), and maybe in bytes above it; 0 when all eight are plain.
func special(w uint64) uint64 {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	zero := (quote-ones)&^quote | (backslash-ones)&^backslash // a quote or a backslash
	return (zero | (w-ones*0x20)&^w | w) & high
}

// internAt is intern for the string at data[start:end], with a cache in
// front of the map for strings of up to 8 bytes (resource names): a map
// lookup for every line took a tenth of BenchmarkReadFloor/decode. The
// string's bytes, loaded as one word, are its key.
func (d *decoder) internAt(data []byte, start, end int) string {
	size := end - start
	if size > 8 || end < 8 {
		return d.intern(data[start:end])
	}
	w := binary.LittleEndian.Uint64(data[end-8:]) >> (64 - 8*size)
	slot := &d.recent[(w*0x9E3779B97F4A7C15+uint64(size))>>(64-recentBits)]
	if slot.word != w || len(slot.s) != size {
		slot.word, slot.s = w, d.intern(data[start:end])
	}
	return slot.s
}
