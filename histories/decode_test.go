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
		{"bad escape", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"\q"}`, `field "value": bad escape`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Event
			err := newDecoder().Decode([]byte(tc.line), &e)
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
			require.NoError(t, newDecoder().Decode([]byte(tc.line), &e))
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
			require.NoError(t, newDecoder().Decode(line, &got))
			assert.Equal(t, e, got)
		})
	}
}

func TestEncodeReplacesInvalidUTF8(t *testing.T) {
	t.Parallel()
	e := Event{Type: TypeInvoke, F: FWrite, Resource: "r", Token: 1, HasToken: true, Value: "a\xffb", HasValue: true}
	var got Event
	require.NoError(t, newDecoder().Decode(AppendJSON(nil, &e), &got))
	assert.Equal(t, "a\uFFFDb", got.Value)
}
