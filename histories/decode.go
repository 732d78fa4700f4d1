package histories

import (
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// fieldError says what is wrong with one line of a history. The reader adds
// the file name and the line number, giving messages such as
//
//	history.jsonl:17: field "token": not an unsigned integer
type fieldError struct {
	field string // the JSON key, or "" when the line itself is malformed
	msg   string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return fmt.Sprintf("field %q: %s", e.field, e.msg)
}

func fieldErr(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// Bits recording which fields a line carried, to find repeated and missing
// fields without a map.
const (
	seenIndex = 1 << iota
	seenTime
	seenProcess
	seenActor
	seenType
	seenF
	seenResource
	seenToken
	seenValue
	seenOutcome
	seenHolder
	seenFault
	seenDetail
	seenError
	seenTrace
	seenFormat
)

// decoder parses one history line at a time. It is hand-written rather than
// built on encoding/json because reading is on the critical path of checking
// histories of millions of operations, and because a user deserves an error
// that names the field, not a Go type.
//
// It accepts only what RFC 8259 calls JSON, and of that only valid text: a
// line encoding/json rejects is rejected here too (FuzzDecodeMatchesJSON),
// and so are invalid UTF-8 and lone UTF-16 surrogates, which encoding/json
// reads as U+FFFD. A lenient reader would make different bytes one value,
// and two distinct writes that read as the same value can change a verdict.
type decoder struct {
	buf    []byte
	pos    int
	seen   int
	format int64 // the format field, checked by finish
	// interned keeps one copy of the short strings that repeat on every
	// line (resources, functions, actors), so reading a large history does
	// not allocate them again and again.
	interned map[string]string
	recent   [1 << recentBits]recentString // in front of interned (internAt)
	// values, when set, receives the bytes of every value instead of a
	// string per value: a block of lines then makes one string for all
	// its values (see block.decode), which saves an allocation per line.
	values *valueBatch
}

// recentBits sets the size of the decoder's cache of short strings: room
// for the resources of a history of dozens.
const recentBits = 6

// recentString is a short string and its bytes as a word.
type recentString struct {
	word uint64
	s    string
}

// valueBatch collects the values of a block's events.
type valueBatch struct {
	bytes []byte
	spans []valueSpan
	event int32 // the event being decoded
}

type valueSpan struct{ event, start, end int32 }

func newDecoder() *decoder {
	return &decoder{interned: make(map[string]string)}
}

// decodeLine parses line into e. It never panics: whatever the input, it
// returns either a complete, structurally valid event or a *fieldError.
// Lines as AppendJSON writes them take the fast path (scan.go); the
// general decoder reads every other line, and every line the fast path
// would reject, so that the errors are its own.
func (d *decoder) decodeLine(line []byte, e *Event) error {
	if d.scan(line, e, true) > 0 {
		return nil
	}
	return d.decodeGeneral(line, e)
}

// decodeGeneral is decodeLine for any line: it reads the fields in any order,
// with any spacing, escapes and unknown fields.
func (d *decoder) decodeGeneral(line []byte, e *Event) error {
	*e = Event{Process: -1}
	d.buf, d.pos, d.seen = line, 0, 0
	d.skipSpace()
	if !d.consume('{') {
		return fieldErr("", "not a JSON object")
	}
	d.skipSpace()
	if d.consume('}') {
		return d.finish(e)
	}
	for {
		d.skipSpace()
		at := d.pos
		key, err := d.rawString("")
		if err != nil {
			if at < len(d.buf) && d.buf[at] == '"' {
				return fieldErr("", "field name: %v", err)
			}
			return fieldErr("", "expected a field name in quotes")
		}
		d.skipSpace()
		if !d.consume(':') {
			return fieldErr(string(key), "expected ':' after the field name")
		}
		d.skipSpace()
		if err := d.field(key, e); err != nil {
			return err
		}
		d.skipSpace()
		if d.consume(',') {
			continue
		}
		if d.consume('}') {
			break
		}
		return fieldErr(string(key), "expected ',' or '}' after the value")
	}
	d.skipSpace()
	if d.pos != len(d.buf) {
		return fieldErr("", "unexpected text after the JSON object")
	}
	return d.finish(e)
}

func (d *decoder) mark(bit int, name string) error {
	if d.seen&bit != 0 {
		return fieldErr(name, "appears twice")
	}
	d.seen |= bit
	return nil
}

func (d *decoder) field(key []byte, e *Event) error {
	var err error
	switch string(key) {
	case "index":
		if err = d.mark(seenIndex, "index"); err == nil {
			e.Index, err = d.nonNegative("index")
		}
	case "time":
		if err = d.mark(seenTime, "time"); err == nil {
			e.Time, err = d.nonNegative("time")
		}
	case "process":
		if err = d.mark(seenProcess, "process"); err == nil {
			var p int64
			p, err = d.nonNegative("process")
			e.Process = int(p)
		}
	case "actor":
		if err = d.mark(seenActor, "actor"); err == nil {
			e.Actor, err = d.internedString("actor")
		}
		if err == nil && e.Actor == "" {
			// An empty actor would make a client event without a process.
			err = fieldErr("actor", "empty (client events have a process instead; other events name their actor: lease, nemesis, harness)")
		}
	case "type":
		if err = d.mark(seenType, "type"); err == nil {
			e.Type, err = d.eventType()
		}
	case "f":
		if err = d.mark(seenF, "f"); err == nil {
			e.F, err = d.internedString("f")
		}
	case "resource":
		if err = d.mark(seenResource, "resource"); err == nil {
			e.Resource, err = d.internedString("resource")
		}
	case "token":
		if err = d.mark(seenToken, "token"); err == nil {
			e.Token, e.HasToken, err = d.token()
		}
	case "value":
		if err = d.mark(seenValue, "value"); err == nil {
			e.Value, e.HasValue, err = d.value()
		}
	case "outcome":
		if err = d.mark(seenOutcome, "outcome"); err == nil {
			e.Outcome, err = d.outcome()
		}
	case "holder":
		if err = d.mark(seenHolder, "holder"); err == nil {
			var h int64
			h, err = d.nonNegative("holder")
			e.Holder, e.HasHolder = int(h), true
		}
	case "fault":
		if err = d.mark(seenFault, "fault"); err == nil {
			e.Fault, err = d.internedString("fault")
		}
	case "detail":
		if err = d.mark(seenDetail, "detail"); err == nil {
			var b []byte
			if b, err = d.rawString("detail"); err == nil {
				e.Detail = string(b)
			}
		}
	case "error":
		if err = d.mark(seenError, "error"); err == nil {
			var b []byte
			if b, err = d.rawString("error"); err == nil {
				e.Error = string(b)
			}
		}
	case "trace":
		if err = d.mark(seenTrace, "trace"); err == nil {
			var b []byte
			if b, err = d.rawString("trace"); err == nil {
				e.Trace, err = traceID(b)
			}
		}
	case "format":
		if err = d.mark(seenFormat, "format"); err == nil {
			d.format, err = d.nonNegative("format")
		}
	default:
		// Unknown fields are skipped so that newer writers and other
		// tools can add information without breaking older readers.
		err = d.skipValue(string(key), 0)
	}
	return err
}

// finish checks what one line can tell on its own; what needs the other
// lines (pairing, order) is checked by the pairer.
func (d *decoder) finish(e *Event) error {
	switch {
	case d.seen&seenIndex == 0:
		return fieldErr("index", "missing")
	case d.seen&seenTime == 0:
		return fieldErr("time", "missing")
	case d.seen&(seenProcess|seenActor) == 0:
		return fieldErr("process", "missing (client events need a process, other events an actor)")
	case d.seen&seenProcess != 0 && d.seen&seenActor != 0:
		return fieldErr("actor", "an event has either a process or an actor, not both")
	case e.isHeader():
		return d.finishHeader(e)
	case d.seen&seenFormat != 0:
		return fieldErr("format", "only the header (actor harness, f header) names a format")
	}
	if !e.isClient() {
		return finishOther(e)
	}
	switch {
	case e.Type == typeNone:
		return fieldErr("type", "missing")
	case e.F != FWrite && e.F != FRead:
		if e.F == "" {
			return fieldErr("f", "missing")
		}
		return fieldErr("f", "%q is not a client function (write or read)", e.F)
	case e.Resource == "":
		return fieldErr("resource", "missing")
	case e.Outcome != OutcomeNone && (e.F != FWrite || e.Type != TypeOK):
		return fieldErr("outcome", "only an ok completion of a write has an outcome")
	case e.Error != "" && e.Type != TypeFail && e.Type != TypeInfo:
		return fieldErr("error", "only a fail or info completion carries an error")
	case e.Trace != "" && e.Type != TypeInvoke:
		return fieldErr("trace", "only an invocation carries a trace id")
	}
	if e.F == FWrite {
		switch {
		case e.Type == TypeInvoke && !e.HasToken:
			return fieldErr("token", "missing on a write invocation")
		case e.Type == TypeInvoke && !e.HasValue:
			return fieldErr("value", "missing on a write invocation")
		case e.Type == TypeOK && e.Outcome == OutcomeNone:
			return fieldErr("outcome", "missing on an ok write completion (accepted or rejected)")
		}
	}
	return nil
}

// finishHeader checks a header: it names a format this package reads.
func (d *decoder) finishHeader(e *Event) error {
	if d.seen&seenFormat == 0 {
		return fieldErr("format", "missing on the header")
	}
	if err := checkFormat(d.format); err != nil {
		return err
	}
	e.Format = uint8(d.format)
	return finishOther(e)
}

// finishOther checks an event of an actor other than a client.
func finishOther(e *Event) error {
	switch {
	case e.Trace != "":
		return fieldErr("trace", "only a client's invocation carries a trace id")
	case e.Actor != actorHarness || e.F != fInitial:
		return nil
	case e.Resource == "":
		return fieldErr("resource", "missing on the initial state of a resource")
	case !e.HasToken:
		return fieldErr("token", "missing on the initial state of a resource")
	case !e.HasValue:
		return fieldErr("value", "missing on the initial state of a resource (a resource never written has no initial event)")
	}
	return nil
}

// traceID checks a W3C trace id: 32 lowercase hex digits, not all zero
// (the trace-context recommendation calls all zeros invalid).
func traceID(b []byte) (string, error) {
	if len(b) != 32 {
		return "", fieldErr("trace", "not a W3C trace id: %d characters, want 32 lowercase hex digits", len(b))
	}
	zero := true
	for _, c := range b {
		switch {
		case c == '0':
		case c >= '1' && c <= '9', c >= 'a' && c <= 'f':
			zero = false
		default:
			return "", fieldErr("trace", "not a W3C trace id: %q is not a lowercase hex digit", c)
		}
	}
	if zero {
		return "", fieldErr("trace", "not a W3C trace id: all zeros")
	}
	return string(b), nil
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\r', '\n':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) consume(c byte) bool {
	if d.pos < len(d.buf) && d.buf[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *decoder) consumeLiteral(lit string) bool {
	if len(d.buf)-d.pos >= len(lit) && string(d.buf[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return true
	}
	return false
}

// digits returns the JSON integer at the current position: 0, or a digit
// 1 to 9 and more digits (RFC 8259 forbids leading zeros). Signs,
// fractions and exponents, which JSON allows but a counter cannot have,
// are refused even where the value is whole (-0, 1.0, 1e3): the format
// asks for plain integers (docs/history-format.md). kind names what the
// field holds, for the error.
func (d *decoder) digits(field, kind string) ([]byte, error) {
	start := d.skipDigits()
	switch {
	case d.pos == start:
		return nil, fieldErr(field, "not %s", kind)
	case d.buf[start] == '0' && d.pos-start > 1:
		return nil, fieldErr(field, "not a JSON number: leading zero")
	}
	if d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case '.', 'e', 'E':
			return nil, fieldErr(field, "not %s", kind)
		}
	}
	return d.buf[start:d.pos], nil
}

// skipDigits steps over a run of ASCII digits and returns where it began.
func (d *decoder) skipDigits() int {
	start := d.pos
	for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
		d.pos++
	}
	return start
}

func (d *decoder) nonNegative(field string) (int64, error) {
	b, err := d.digits(field, "a non-negative integer")
	if err != nil {
		return 0, err
	}
	n, ok := parseDigits(b, math.MaxInt64)
	if !ok {
		return 0, fieldErr(field, "out of range")
	}
	return int64(n), nil
}

func (d *decoder) token() (uint64, bool, error) {
	if d.consumeLiteral("null") {
		return 0, false, nil
	}
	b, err := d.digits("token", "an unsigned integer")
	if err != nil {
		return 0, false, err
	}
	n, ok := parseDigits(b, math.MaxUint64)
	if !ok {
		return 0, false, fieldErr("token", "out of range for an unsigned 64-bit integer")
	}
	return n, true, nil
}

// parseDigits converts ASCII digits to a number no greater than limit. It
// replaces strconv on the hot path: converting the bytes to a string for
// strconv allocated on every field.
func parseDigits(b []byte, limit uint64) (uint64, bool) {
	var n uint64
	for _, c := range b {
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

func (d *decoder) eventType() (Type, error) {
	b, err := d.rawString("type")
	if err != nil {
		return typeNone, err
	}
	switch string(b) {
	case "invoke":
		return TypeInvoke, nil
	case "ok":
		return TypeOK, nil
	case "fail":
		return TypeFail, nil
	case "info":
		return TypeInfo, nil
	}
	return typeNone, fieldErr("type", "%q is not one of invoke, ok, fail, info", b)
}

func (d *decoder) outcome() (Outcome, error) {
	b, err := d.rawString("outcome")
	if err != nil {
		return OutcomeNone, err
	}
	switch string(b) {
	case "accepted":
		return Accepted, nil
	case "rejected":
		return Rejected, nil
	}
	return OutcomeNone, fieldErr("outcome", "%q is not accepted or rejected", b)
}

func (d *decoder) internedString(field string) (string, error) {
	b, err := d.rawString(field)
	if err != nil {
		return "", err
	}
	return d.intern(b), nil
}

// intern returns b as a string the decoder keeps one copy of.
func (d *decoder) intern(b []byte) string {
	if s, ok := d.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.interned) < 1<<16 {
		d.interned[s] = s
	}
	return s
}

// keepValue keeps b, the value of the event being decoded: in d.values
// when batching, where it returns "" (block.setValues gives the event its
// value), else as a string of its own.
func (d *decoder) keepValue(b []byte) string {
	v := d.values
	if v == nil {
		return string(b)
	}
	start := int32(len(v.bytes))
	v.bytes = append(v.bytes, b...)
	v.spans = append(v.spans, valueSpan{v.event, start, int32(len(v.bytes))})
	return ""
}

// value decodes the value field, into d.values when batching.
func (d *decoder) value() (string, bool, error) {
	if d.consumeLiteral("null") {
		return "", false, nil
	}
	b, err := d.rawString("value")
	if err != nil {
		return "", false, err
	}
	return d.keepValue(b), true, nil
}

// rawString parses a JSON string at the current position. Without escapes
// it returns a slice of the line; with escapes, a freshly decoded copy.
func (d *decoder) rawString(field string) ([]byte, error) {
	if !d.consume('"') {
		return nil, fieldErr(field, "not a string")
	}
	start := d.pos
	for {
		for d.pos < len(d.buf) && plain[d.buf[d.pos]] {
			d.pos++
		}
		if d.pos == len(d.buf) {
			return nil, fieldErr(field, "unterminated string")
		}
		switch c := d.buf[d.pos]; {
		case c == '"':
			s := d.buf[start:d.pos]
			d.pos++
			return s, nil
		case c == '\\':
			return d.escapedString(field, start)
		case c < 0x20:
			return nil, fieldErr(field, "control character in string")
		}
		if err := d.multibyte(field); err != nil {
			return nil, err
		}
	}
}

// plain marks the bytes that stand for themselves in a JSON string: all
// but the quote, the backslash, control characters and the bytes of
// characters beyond ASCII, whose UTF-8 must be checked. A table, because
// the test of each byte is the decoder's inner loop (BenchmarkRead).
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// multibyte steps over the UTF-8 encoding of one character beyond ASCII.
func (d *decoder) multibyte(field string) error {
	r, size := utf8.DecodeRune(d.buf[d.pos:])
	if r == utf8.RuneError && size == 1 {
		return fieldErr(field, "invalid UTF-8 (byte %#x)", d.buf[d.pos])
	}
	d.pos += size
	return nil
}

func (d *decoder) escapedString(field string, start int) ([]byte, error) {
	out := append([]byte(nil), d.buf[start:d.pos]...)
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		switch {
		case c == '"':
			d.pos++
			return out, nil
		case c < 0x20:
			return nil, fieldErr(field, "control character in string")
		case c >= utf8.RuneSelf:
			at := d.pos
			if err := d.multibyte(field); err != nil {
				return nil, err
			}
			out = append(out, d.buf[at:d.pos]...)
			continue
		case c != '\\':
			out = append(out, c)
			d.pos++
			continue
		}
		d.pos++
		if d.pos >= len(d.buf) {
			break
		}
		esc := d.buf[d.pos]
		d.pos++
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, err := d.unicodeEscape(field)
			if err != nil {
				return nil, err
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, fieldErr(field, "bad escape \\%c", esc)
		}
	}
	return nil, fieldErr(field, "unterminated string")
}

// unicodeEscape decodes the digits of a \uXXXX escape, and the escape of
// the low surrogate that must follow a high one. A lone surrogate is an
// error: it is no character, and encoding/json would read it as U+FFFD, so
// that "\ud800" and "\udc00" would be one value.
func (d *decoder) unicodeEscape(field string) (rune, error) {
	r, ok := d.hex4()
	if !ok {
		return 0, fieldErr(field, "bad \\u escape")
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if r < 0xdc00 && d.consumeLiteral(`\u`) {
		if lo, ok := d.hex4(); ok && lo >= 0xdc00 && lo <= 0xdfff {
			return utf16.DecodeRune(r, lo), nil
		}
	}
	return 0, fieldErr(field, "lone surrogate \\u%04x (half of a UTF-16 pair, not a character)", r)
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.buf)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.buf[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}

// maxDepth bounds the nesting of unknown values we skip, so that a hostile
// line cannot make us recurse without end.
const maxDepth = 64

// skipValue skips one JSON value of a field we do not know.
func (d *decoder) skipValue(field string, depth int) error {
	if depth > maxDepth {
		return fieldErr(field, "nested too deeply")
	}
	if d.pos >= len(d.buf) {
		return fieldErr(field, "missing value")
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		_, err := d.rawString(field)
		return err
	case c == '{' || c == '[':
		return d.skipContainer(field, depth)
	case c == '-' || (c >= '0' && c <= '9'):
		return d.skipNumber(field)
	case d.consumeLiteral("true"), d.consumeLiteral("false"), d.consumeLiteral("null"):
		return nil
	}
	return fieldErr(field, "not a JSON value")
}

func (d *decoder) skipContainer(field string, depth int) error {
	closing := byte('}')
	if d.buf[d.pos] == '[' {
		closing = ']'
	}
	d.pos++
	d.skipSpace()
	if d.consume(closing) {
		return nil
	}
	for {
		d.skipSpace()
		if closing == '}' {
			if _, err := d.rawString(field); err != nil {
				return err
			}
			d.skipSpace()
			if !d.consume(':') {
				return fieldErr(field, "expected ':' in object")
			}
			d.skipSpace()
		}
		if err := d.skipValue(field, depth+1); err != nil {
			return err
		}
		d.skipSpace()
		if d.consume(',') {
			continue
		}
		if d.consume(closing) {
			return nil
		}
		return fieldErr(field, "malformed array or object")
	}
}

// skipNumber skips a number by RFC 8259's grammar:
//
//	-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
func (d *decoder) skipNumber(field string) error {
	d.consume('-')
	start := d.skipDigits()
	switch {
	case d.pos == start:
		return fieldErr(field, "not a JSON number")
	case d.buf[start] == '0' && d.pos-start > 1:
		return fieldErr(field, "not a JSON number: leading zero")
	}
	if d.consume('.') && d.skipDigits() == d.pos {
		return fieldErr(field, "not a JSON number: no digit after the decimal point")
	}
	if d.consume('e') || d.consume('E') {
		if !d.consume('+') {
			d.consume('-')
		}
		if d.skipDigits() == d.pos {
			return fieldErr(field, "not a JSON number: no digit in the exponent")
		}
	}
	return nil
}
