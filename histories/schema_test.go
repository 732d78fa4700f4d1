package histories

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestSchemaAcceptsEveryEventTheEncoderWrites: each kind of event
// fencecheck writes, the header among them, is a valid line by
// docs/schema/history-line.schema.json.
func TestSchemaAcceptsEveryEventTheEncoderWrites(t *testing.T) {
	t.Parallel()
	for i, e := range encoderEvents() {
		line := AppendJSON(nil, &e)
		if i > 0 {
			// A header is only ever a first line: give the others one.
			h := Header()
			line = append(AppendJSON(nil, &h), line...)
		}
		assert.NoError(t, schema.ValidateHistory(bytes.NewReader(line), "encoded.jsonl"), "%s", line)
	}
}

// schemaLines are lines the decoder rejects for a reason the schema can
// say too, so the schema rejects them as well: the two cannot drift apart
// silently. Each is a change of a valid line.
var schemaLines = []struct{ name, line string }{
	{"not an object", `[1]`},
	{"no index", `{"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`},
	{"no time", `{"index":0,"process":0,"type":"invoke","f":"read","resource":"r"}`},
	{"a negative index", `{"index":-1,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`},
	{"an index beyond int64", `{"index":9223372036854775808,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`},
	{"a fractional time", `{"index":0,"time":0.5,"process":0,"type":"invoke","f":"read","resource":"r"}`},
	{"a string process", `{"index":0,"time":0,"process":"0","type":"invoke","f":"read","resource":"r"}`},
	{"neither process nor actor", `{"index":0,"time":0,"type":"invoke","f":"read","resource":"r"}`},
	{"process and actor", `{"index":0,"time":0,"process":0,"actor":"lease","f":"acquire"}`},
	{"an empty actor", `{"index":0,"time":0,"actor":"","f":"acquire"}`},
	{"no type", `{"index":0,"time":0,"process":0,"f":"read","resource":"r"}`},
	{"an unknown type", `{"index":0,"time":0,"process":0,"type":"done","f":"read","resource":"r"}`},
	{"an unknown type of another actor", `{"index":0,"time":0,"actor":"lease","type":"done","f":"acquire"}`},
	{"a client function that is none", `{"index":0,"time":0,"process":0,"type":"invoke","f":"delete","resource":"r"}`},
	{"no function", `{"index":0,"time":0,"process":0,"type":"invoke","resource":"r"}`},
	{"no resource", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read"}`},
	{"an empty resource", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":""}`},
	{"a null resource", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":null}`},
	{"a negative token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":-1,"value":"v"}`},
	{"a token beyond uint64", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":18446744073709551616,"value":"v"}`},
	{"a string token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":"1","value":"v"}`},
	{"a write invocation without a token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","value":"v"}`},
	{"a write invocation with a null token", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":null,"value":"v"}`},
	{"a write invocation without a value", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1}`},
	{"a write invocation with a null value", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":null}`},
	{"a number value", `{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","value":1}`},
	{"an ok write without an outcome", `{"index":0,"time":0,"process":0,"type":"ok","f":"write","resource":"r"}`},
	{"an unknown outcome", `{"index":0,"time":0,"process":0,"type":"ok","f":"write","resource":"r","outcome":"acepted"}`},
	{"an outcome on a read", `{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","outcome":"accepted"}`},
	{"an outcome on a failed write", `{"index":0,"time":0,"process":0,"type":"fail","f":"write","resource":"r","outcome":"rejected"}`},
	{"an error on an ok", `{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","error":"x"}`},
	{"an error on an invocation", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","error":"x"}`},
	{"a negative holder", `{"index":0,"time":0,"actor":"lease","f":"acquire","holder":-1}`},
	{"a null detail", `{"index":0,"time":0,"actor":"lease","f":"acquire","detail":null}`},
	{"a number fault", `{"index":0,"time":0,"actor":"nemesis","f":"start","fault":1}`},
	{"a trace on a completion", `{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","trace":"4bf92f3577b34da6a3ce929d0e0e4736"}`},
	{"a trace of another actor", `{"index":0,"time":0,"actor":"lease","f":"acquire","trace":"4bf92f3577b34da6a3ce929d0e0e4736"}`},
	{"a short trace", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":"4bf92f35"}`},
	{"an uppercase trace", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":"4BF92F3577B34DA6A3CE929D0E0E4736"}`},
	{"an all-zero trace", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":"00000000000000000000000000000000"}`},
	{"an empty trace", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","trace":""}`},
	{"an initial state without a resource", `{"index":0,"time":0,"actor":"harness","f":"initial","token":1,"value":"v"}`},
	{"an initial state without a token", `{"index":0,"time":0,"actor":"harness","f":"initial","resource":"r","value":"v"}`},
	{"an initial state with a null value", `{"index":0,"time":0,"actor":"harness","f":"initial","resource":"r","token":1,"value":null}`},
	{"a header without a format", `{"index":0,"time":0,"actor":"harness","f":"header"}`},
	{"a header of format 0", `{"index":0,"time":0,"actor":"harness","f":"header","format":0}`},
	{"a header of a newer format", `{"index":0,"time":0,"actor":"harness","f":"header","format":2}`},
	{"a string format", `{"index":0,"time":0,"actor":"harness","f":"header","format":"1"}`},
	{"a format on another event", `{"index":0,"time":0,"actor":"lease","f":"acquire","format":1}`},
	{"a format on a client event", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","format":1}`},
}

func TestSchemaRejectsWhatTheDecoderRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range schemaLines {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Event
			require.Error(t, newDecoder().decodeLine([]byte(tc.line), &e), "the decoder accepts it")
			assert.Error(t, schema.ValidateHistory(strings.NewReader(tc.line+"\n"), "h.jsonl"), "the schema accepts it")
		})
	}
}

// TestSchemaLimits: what the decoder rejects and no JSON Schema can, as
// the schema's description says. Should a schema learn one, this test
// tells, and the description must change.
func TestSchemaLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, line string }{
		{"a whole number written as a fraction", `{"index":1.0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`},
		{"an exponent", `{"index":0,"time":1e3,"process":0,"type":"invoke","f":"read","resource":"r"}`},
		{"minus zero", `{"index":-0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`},
		{"a field twice", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","resource":"s"}`},
		{"invalid UTF-8", "{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\xff\"}"},
		{"a lone surrogate", `{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"\ud800"}`},
		{"an unknown value nested deep", `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","x":` +
			strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`},
	} {
		var e Event
		require.Error(t, newDecoder().decodeLine([]byte(tc.line), &e), tc.name)
		assert.NoError(t, schema.ValidateHistory(strings.NewReader(tc.line+"\n"), "h.jsonl"), tc.name)
	}
}
