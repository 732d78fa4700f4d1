package histories

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// FieldError says what is wrong with one line of a history. The reader adds
// the file name and the line number, giving messages such as
//
//	history.jsonl:17: field "token": not an unsigned integer
type FieldError struct {
	Field string // the JSON key, or "" when the line itself is malformed
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Msg)
}

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
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
)

// decoder parses one history line at a time. It is hand-written rather than
// built on encoding/json because reading is on the critical path of checking
// histories of millions of operations, and because a user deserves an error
// that names the field, not a Go type.
type decoder struct {
	buf  []byte
	pos  int
	seen int
	// interned keeps one copy of the short strings that repeat on every
	// line (resources, functions, actors), so reading a large history does
	// not allocate them again and again.
	interned map[string]string
	// values, when set, receives the bytes of every value instead of a
	// string per value: a block of lines then makes one string for all
	// its values (see block.decode), which saves an allocation per line.
	values *valueBatch
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

// Decode parses line into e. It never panics: whatever the input, it
// returns either a complete, structurally valid event or a *FieldError.
func (d *decoder) Decode(line []byte, e *Event) error {
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
		key, err := d.rawString("")
		if err != nil {
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
	default:
		// Unknown fields are skipped so that newer writers and other
		// tools can add information without breaking older readers.
		err = d.skipValue(string(key), 0)
	}
	return err
}

// finish checks what one line can tell on its own; what needs the other
// lines (pairing, order) is checked by the Pairer.
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
	}
	if !e.IsClient() {
		return finishOther(e)
	}
	switch {
	case e.Type == TypeNone:
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

// finishOther checks an event of an actor other than a client.
func finishOther(e *Event) error {
	switch {
	case e.Actor == "":
		return fieldErr("actor", "empty")
	case e.Actor != ActorHarness || e.F != FInitial:
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

// digits returns the run of ASCII digits at the current position, rejecting
// signs, fractions and exponents that JSON would allow but a counter cannot
// have.
func (d *decoder) digits() ([]byte, bool) {
	start := d.pos
	for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
		d.pos++
	}
	if d.pos == start {
		return nil, false
	}
	if d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case '.', 'e', 'E':
			return nil, false
		}
	}
	return d.buf[start:d.pos], true
}

func (d *decoder) nonNegative(field string) (int64, error) {
	b, ok := d.digits()
	if !ok {
		return 0, fieldErr(field, "not a non-negative integer")
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
	b, ok := d.digits()
	if !ok {
		return 0, false, fieldErr("token", "not an unsigned integer")
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
		return TypeNone, err
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
	return TypeNone, fieldErr("type", "%q is not one of invoke, ok, fail, info", b)
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
	if s, ok := d.interned[string(b)]; ok {
		return s, nil
	}
	s := string(b)
	if len(d.interned) < 1<<16 {
		d.interned[s] = s
	}
	return s, nil
}

// value decodes the value field, into d.values when batching.
func (d *decoder) value() (string, bool, error) {
	if d.values == nil {
		return d.nullableString("value")
	}
	if d.consumeLiteral("null") {
		return "", false, nil
	}
	b, err := d.rawString("value")
	if err != nil {
		return "", false, err
	}
	v := d.values
	start := int32(len(v.bytes))
	v.bytes = append(v.bytes, b...)
	v.spans = append(v.spans, valueSpan{v.event, start, int32(len(v.bytes))})
	return "", true, nil
}

func (d *decoder) nullableString(field string) (string, bool, error) {
	if d.consumeLiteral("null") {
		return "", false, nil
	}
	b, err := d.rawString(field)
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// rawString parses a JSON string at the current position. Without escapes
// it returns a slice of the line; with escapes, a freshly decoded copy.
func (d *decoder) rawString(field string) ([]byte, error) {
	if !d.consume('"') {
		return nil, fieldErr(field, "not a string")
	}
	start := d.pos
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		switch {
		case c == '"':
			s := d.buf[start:d.pos]
			d.pos++
			return s, nil
		case c == '\\':
			return d.escapedString(field, start)
		case c < 0x20:
			return nil, fieldErr(field, "control character in string")
		}
		d.pos++
	}
	return nil, fieldErr(field, "unterminated string")
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
			r, ok := d.hex4()
			if !ok {
				return nil, fieldErr(field, "bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if d.consumeLiteral(`\u`) {
					if lo, ok := d.hex4(); ok {
						r2 = utf16.DecodeRune(r, lo)
					}
				}
				r = r2
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, fieldErr(field, "bad escape \\%c", esc)
		}
	}
	return nil, fieldErr(field, "unterminated string")
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

func (d *decoder) skipNumber(field string) error {
	start := d.pos
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.pos++
			continue
		}
		break
	}
	if _, err := strconv.ParseFloat(string(d.buf[start:d.pos]), 64); err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return fieldErr(field, "not a number")
		}
	}
	return nil
}
