package histories

import (
	"bytes"
	"testing"
)

// FuzzDecode checks that no input makes the decoder panic, and that every
// line it accepts survives an encode/decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"index":4,"time":3000,"process":1,"type":"invoke","f":"write","resource":"report","token":42,"value":"new-result"}`,
		`{"index":5,"time":3100,"process":1,"type":"ok","f":"write","resource":"report","token":42,"value":"new-result","outcome":"accepted"}`,
		`{"index":6,"time":3200,"process":2,"type":"ok","f":"read","resource":"report","value":null}`,
		`{"index":7,"time":3300,"process":2,"type":"info","f":"read","resource":"report"}`,
		`{"index":0,"time":0,"actor":"lease","f":"acquire","resource":"report","token":41,"holder":0,"detail":"A"}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"\ud83d\ude00\u0000","x":[{"y":[]}]}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":-1,"value":"v"}`,
		`{`, `"`, `{"a":[[[[[[[[`, ``,
		"{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"resource\":\"r\",\"token\":1,\"value\":\"\xd3\"}", // invalid UTF-8
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var e Event
		if err := newDecoder().Decode(line, &e); err != nil {
			if _, ok := err.(*FieldError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		encoded := AppendJSON(nil, &e)
		var again Event
		if err := newDecoder().Decode(encoded, &again); err != nil {
			t.Fatalf("re-decoding %s: %v", encoded, err)
		}
		if !bytes.Equal(AppendJSON(nil, &again), encoded) {
			t.Fatalf("round trip changed %s", encoded)
		}
	})
}

// FuzzRead feeds whole files to the reader and the pairer: whatever the
// input, they return events, operations or an error, never a panic.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\"}\n" +
		"{\"index\":1,\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"read\",\"resource\":\"r\",\"value\":\"x\"}\n"))
	f.Add([]byte("{\"index\":0,\"time\":5,\"process\":0,\"type\":\"ok\",\"f\":\"read\",\"resource\":\"r\"}\n\n{\"index\":0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			return
		}
		for _, op := range h.Operations {
			if op.Return < op.Call {
				t.Fatalf("operation %d returns before it is called", op.ID)
			}
		}
	})
}
