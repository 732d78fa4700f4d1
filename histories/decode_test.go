package histories

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeRejectsMalformedLinesNamingTheField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, line, want string
	}{
		{"not an object", `[1,2]`, "not a JSON object"},
		{"negative token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":-4,"value":"v"}`, `field "token": not an unsigned integer`},
		{"string token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":"41","value":"v"}`, `field "token": not an unsigned integer`},
		{"fractional token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":4.5,"value":"v"}`, `field "token": not an unsigned integer`},
		{"token overflow", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":18446744073709551616,"value":"v"}`, `field "token": out of range`},
		{"bad type", `{"index":0,"time":0,"process":0,"type":"begin","f":"read","resource":"r"}`, `field "type": "begin" is not one of`},
		{"missing index", `{"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`, `field "index": missing`},
		{"missing time", `{"index":0,"process":0,"type":"invoke","f":"read","resource":"r"}`, `field "time": missing`},
		{"missing process", `{"index":0,"time":0,"type":"invoke","f":"read","resource":"r"}`, `field "process": missing`},
		{"process and actor", `{"index":0,"time":0,"process":1,"actor":"lease","f":"acquire"}`, `field "actor": an event has either`},
		{"negative process", `{"index":0,"time":0,"process":-1,"type":"invoke","f":"read","resource":"r"}`, `field "process": not a non-negative integer`},
		{"unknown f", `{"index":0,"time":0,"process":0,"type":"invoke","f":"cas","resource":"r"}`, `field "f": "cas" is not a client function`},
		{"missing resource", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read"}`, `field "resource": missing`},
		{"write without token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","value":"v"}`, `field "token": missing on a write invocation`},
		{"write without value", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1}`, `field "value": missing on a write invocation`},
		{"ok write without outcome", `{"index":0,"time":0,"process":0,"type":"ok","f":"write","resource":"r","token":1}`, `field "outcome": missing on an ok write completion`},
		{"outcome on a read", `{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","outcome":"accepted"}`, `field "outcome": only an ok completion of a write`},
		{"bad outcome", `{"index":0,"time":0,"process":0,"type":"ok","f":"write","resource":"r","token":1,"outcome":"maybe"}`, `field "outcome": "maybe" is not accepted or rejected`},
		{"duplicate field", `{"index":0,"index":1,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`, `field "index": appears twice`},
		{"unterminated string", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r`, `field "resource": unterminated string`},
		{"trailing garbage", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"} x`, "unexpected text after the JSON object"},
		{"missing colon", `{"index" 0}`, `field "index": expected ':'`},
		{"short trace id", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":"4bf9"}`, `field "trace": not a W3C trace id: 4 characters`},
		{"upper-case trace id", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":"4BF92F3577B34DA6A3CE929D0E0E4736"}`, `field "trace": not a W3C trace id: 'B'`},
		{"zero trace id", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":"00000000000000000000000000000000"}`, `field "trace": not a W3C trace id: all zeros`},
		{"trace on a completion", `{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","trace":"4bf92f3577b34da6a3ce929d0e0e4736"}`, `field "trace": only an invocation`},
		{"trace on a nemesis event", `{"index":0,"time":0,"actor":"nemesis","f":"start","trace":"4bf92f3577b34da6a3ce929d0e0e4736"}`, `field "trace": only a client's invocation`},
		{"bad escape", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"\q"}`, `field "value": bad escape`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Event
			err := newDecoder().decodeLine([]byte(tc.line), &e)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDecodeAcceptsWhatTheFormatAllows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		line string
		want Event
	}{
		{
			name: "write invocation",
			line: `{"index":4,"time":3000,"process":1,"type":"invoke","f":"write","resource":"report","token":42,"value":"new-result"}`,
			want: Event{Index: 4, Time: 3000, Process: 1, Type: TypeInvoke, F: FWrite, Resource: "report", Token: 42, HasToken: true, Value: "new-result", HasValue: true},
		},
		{
			name: "read of an unwritten resource, with spaces and unknown fields",
			line: ` { "index" : 5 , "time":3100, "process":1, "type":"ok", "f":"read", "resource":"report", "value":null, "extra":{"a":[1,2.5e3,true,null,"x"]} } `,
			want: Event{Index: 5, Time: 3100, Process: 1, Type: TypeOK, F: FRead, Resource: "report"},
		},
		{
			name: "lease event",
			line: `{"index":0,"time":0,"actor":"lease","f":"acquire","resource":"report","token":41,"holder":0,"detail":"A"}`,
			want: Event{Process: -1, Actor: ActorLease, F: FAcquire, Resource: "report", Token: 41, HasToken: true, HasHolder: true, Detail: "A"},
		},
		{
			name: "escapes and unicode",
			line: `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":18446744073709551615,"value":"a\"b\\c\n\u00e9\ud83d\ude00/"}`,
			want: Event{Type: TypeInvoke, F: FWrite, Resource: "r", Token: 1<<64 - 1, HasToken: true, Value: "a\"b\\c\né😀/", HasValue: true},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Event
			require.NoError(t, newDecoder().decodeLine([]byte(tc.line), &e))
			assert.Equal(t, tc.want, e)
		})
	}
}

func TestEncodeRoundTrips(t *testing.T) {
	t.Parallel()
	events := []Event{
		{Index: 1, Time: 2, Process: 3, Type: TypeInvoke, F: FWrite, Resource: "res\"1", Token: 9, HasToken: true, Value: "tab\there \x01 é", HasValue: true},
		{Index: 2, Time: 5, Process: 3, Type: TypeOK, F: FWrite, Resource: "res\"1", Token: 9, HasToken: true, Value: "v", HasValue: true, Outcome: Rejected},
		{Index: 3, Time: 5, Process: 4, Type: TypeOK, F: FRead, Resource: "r"},
		{Index: 4, Time: 6, Process: -1, Actor: ActorNemesis, F: FStart, Fault: "pause", Detail: "worker 3"},
	}
	for _, e := range events {
		t.Run(e.Type.String()+e.F, func(t *testing.T) {
			line := AppendJSON(nil, &e)
			assert.True(t, strings.HasSuffix(string(line), "}\n"))
			var got Event
			require.NoError(t, newDecoder().decodeLine(line, &got))
			assert.Equal(t, e, got)
		})
	}
}

func TestEncodeReplacesInvalidUTF8(t *testing.T) {
	t.Parallel()
	e := Event{Type: TypeInvoke, F: FWrite, Resource: "r", Token: 1, HasToken: true, Value: "a\xffb", HasValue: true}
	var got Event
	require.NoError(t, newDecoder().decodeLine(AppendJSON(nil, &e), &got))
	assert.Equal(t, "a\uFFFDb", got.Value)
}

// TestDecodeRejectsWhatJSONForbids: the decoder reads RFC 8259 JSON and
// nothing more lenient, and only valid text, so a history another tool
// wrote means to fencecheck what it means to any JSON reader. Each error
// names the field at fault, so a user can fix the writer of the line.
func TestDecodeRejectsWhatJSONForbids(t *testing.T) {
	t.Parallel()
	const head = `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1`
	cases := []struct {
		name, line, want string
	}{
		{"token with a leading zero", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":042,"value":"v"}`, `field "token": not a JSON number: leading zero`},
		{"index with a leading zero", `{"index":01,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`, `field "index": not a JSON number: leading zero`},
		{"time of zeros", `{"index":0,"time":00,"process":0,"type":"invoke","f":"read","resource":"r"}`, `field "time": not a JSON number: leading zero`},
		{"holder with a leading zero", `{"index":0,"time":0,"actor":"lease","f":"acquire","holder":07}`, `field "holder": not a JSON number: leading zero`},
		{"unknown field with a leading zero", head + `,"value":"v","extra":01}`, `field "extra": not a JSON number: leading zero`},
		{"unknown field with a trailing point", head + `,"value":"v","extra":1.}`, `field "extra": not a JSON number: no digit after the decimal point`},
		{"unknown field with a point and no integer", head + `,"value":"v","extra":-.5}`, `field "extra": not a JSON number`},
		{"unknown field with an empty exponent", head + `,"value":"v","extra":1e}`, `field "extra": not a JSON number: no digit in the exponent`},
		{"unknown field with a point before the exponent", head + `,"value":"v","extra":1.e5}`, `field "extra": not a JSON number: no digit after the decimal point`},
		{"unknown field with a plus sign", head + `,"value":"v","extra":+1}`, `field "extra": not a JSON value`},
		{"negative zero token", head[:len(head)-1] + `-0,"value":"v"}`, `field "token": not an unsigned integer`},
		{"exponent for an integer", `{"index":1e3,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`, `field "index": not a non-negative integer`},
		{"fraction for an integer", `{"index":0,"time":1.0,"process":0,"type":"invoke","f":"read","resource":"r"}`, `field "time": not a non-negative integer`},
		{"hexadecimal token", head[:len(head)-1] + `0x2a,"value":"v"}`, `field "token": expected ',' or '}' after the value`},
		{"invalid UTF-8 in a resource", "{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\xff\"}", `field "resource": invalid UTF-8 (byte 0xff)`},
		{"invalid UTF-8 in a value", head + ",\"value\":\"v\xd3\"}", `field "value": invalid UTF-8 (byte 0xd3)`},
		{"invalid UTF-8 after an escape", head + ",\"value\":\"\\n\xc3(\"}", `field "value": invalid UTF-8 (byte 0xc3)`},
		{"UTF-8 of a surrogate", head + ",\"value\":\"\xed\xa0\x80\"}", `field "value": invalid UTF-8 (byte 0xed)`},
		{"overlong UTF-8", head + ",\"value\":\"\xc0\xaf\"}", `field "value": invalid UTF-8 (byte 0xc0)`},
		{"invalid UTF-8 in an unknown field", head + ",\"value\":\"v\",\"extra\":[\"\xfe\"]}", `field "extra": invalid UTF-8 (byte 0xfe)`},
		{"invalid UTF-8 in a field name", head + ",\"value\":\"v\",\"\xffx\":1}", `field name: invalid UTF-8 (byte 0xff)`},
		{"lone high surrogate", head + `,"value":"\ud800"}`, `field "value": lone surrogate \ud800`},
		{"lone low surrogate", head + `,"value":"\udc00"}`, `field "value": lone surrogate \udc00`},
		{"high surrogate before a letter", head + `,"value":"\ud800\u0041"}`, `field "value": lone surrogate \ud800`},
		{"high surrogate before a bad escape", head + `,"value":"\ud800\uZZZZ"}`, `field "value": lone surrogate \ud800`},
		{"two high surrogates", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"\ud83d\ud83d"}`, `field "resource": lone surrogate \ud83d`},
		{"empty actor on a client event", `{"index":0,"time":0,"actor":"","type":"invoke","f":"read","resource":"r"}`, `field "actor": empty`},
		{"empty actor alone", `{"index":0,"time":0,"actor":""}`, `field "actor": empty`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Event
			err := newDecoder().decodeLine([]byte(tc.line), &e)
			require.Error(t, err, "accepted as %+v", e)
			assert.Contains(t, err.Error(), tc.want)
			_, err = Read(t.Context(), Source{Path: "h.jsonl", Reader: strings.NewReader("\n" + tc.line + "\n")})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "h.jsonl:2: "+tc.want)
		})
	}
}

// TestDecodeAcceptsStrictJSON: being strict rejects no valid JSON that the
// format allows.
func TestDecodeAcceptsStrictJSON(t *testing.T) {
	t.Parallel()
	const head = `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":0`
	cases := []struct {
		name, line, value string
	}{
		{"numbers in an unknown field", head + `,"value":"v","extra":[0,-0,0.5,-1.25e-3,1E+2,10e99,1e999]}`, "v"},
		{"a pair of surrogates", head + `,"value":"\ud83d\ude00\uD83D\uDE00"}`, "😀😀"},
		{"the replacement character itself", head + ",\"value\":\"\xef\xbf\xbd\\ufffd\"}", "\uFFFD\uFFFD"},
		{"every escape and a NUL", head + `,"value":"\"\\\/\b\f\n\r\t\u0000é"}`, "\"\\/\b\f\n\r\t\x00é"},
		{"four-byte UTF-8 next to an escape", head + ",\"value\":\"\xf0\x9f\x98\x80\\n\xe2\x82\xac\"}", "😀\n€"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Event
			require.NoError(t, newDecoder().decodeLine([]byte(tc.line), &e))
			assert.Equal(t, tc.value, e.Value)
			assert.NoError(t, matchesJSON([]byte(tc.line)))
		})
	}
}

// TestDecodeReadsEveryKindOfEventTheEncoderWrites: the encoder's output
// for every kind of event decodes to that event, as encoding/json reads it
// too, so the differential fuzz target starts from lines the decoder
// accepts.
func TestDecodeReadsEveryKindOfEventTheEncoderWrites(t *testing.T) {
	t.Parallel()
	for _, e := range encoderEvents() {
		t.Run(e.Actor+e.Type.String()+e.F, func(t *testing.T) {
			t.Parallel()
			line := AppendJSON(nil, &e)
			var got Event
			require.NoError(t, newDecoder().decodeLine(line, &got))
			want := e
			want.Value = strings.ToValidUTF8(want.Value, "\uFFFD")
			assert.Equal(t, want, got)
			assert.NoError(t, matchesJSON(line))
		})
	}
}
