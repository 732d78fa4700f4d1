package histories

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"
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
		`{"index":0,"time":0,"actor":"harness","f":"header","format":1,"detail":"fencecheck history"}`,
		`{"index":0,"time":0,"actor":"harness","f":"header","format":2}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"\ud83d\ude00\u0000","x":[{"y":[]}]}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":-1,"value":"v"}`,
		`{`, `"`, `{"a":[[[[[[[[`, ``,
		"{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"resource\":\"r\",\"token\":1,\"value\":\"\xd3\"}", // invalid UTF-8
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var e Event
		if err := newDecoder().decodeLine(line, &e); err != nil {
			if _, ok := err.(*fieldError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		encoded := AppendJSON(nil, &e)
		var again Event
		if err := newDecoder().decodeLine(encoded, &again); err != nil {
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
	f.Add([]byte("{\"index\":0,\"time\":0,\"actor\":\"harness\",\"f\":\"header\",\"format\":1}\n" +
		"{\"index\":1,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\"}\n" +
		"{\"index\":2,\"time\":0,\"actor\":\"harness\",\"f\":\"header\",\"format\":1}\n"))
	f.Add([]byte("{\"index\":0,\"time\":5,\"process\":0,\"type\":\"ok\",\"f\":\"read\",\"resource\":\"r\"}\n\n{\"index\":0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(t.Context(), Source{Path: "fuzz.jsonl", Reader: bytes.NewReader(data)})
		if err != nil {
			return
		}
		for _, op := range operations(h) {
			if op.Return < op.Call {
				t.Fatalf("operation %d returns before it is called", op.ID)
			}
		}
	})
}

// FuzzDecodeMatchesJSON decodes each line with the decoder and with
// encoding/json: a line encoding/json rejects, the decoder rejects; a line
// the decoder accepts is valid UTF-8, and encoding/json reads the same
// value in every field the decoder knows. The decoder may reject more: a
// line JSON allows but the format does not (a missing field, a negative
// token, a lone surrogate).
func FuzzDecodeMatchesJSON(f *testing.F) {
	for _, e := range encoderEvents() {
		f.Add(AppendJSON(nil, &e))
	}
	for _, line := range []string{
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":042,"value":"v"}`,
		`{"index":01,"time":0,"process":0,"type":"invoke","f":"read","resource":"r"}`,
		`{"index":0,"time":0,"actor":"harness","f":"header","format":01}`,
		`{"index":0,"time":0,"actor":"harness","f":"header","format":1.0}`,
		"{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\xff\"}",
		"{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"resource\":\"r\",\"token\":1,\"value\":\"\xd3\"}",
		`{"index":0,"time":0,"actor":"","type":"invoke","f":"read","resource":"r"}`,
		`{"index":0,"time":0,"process":0,"type":"invoke","f":"write","resource":"r","token":-0,"value":"\ud800"}`,
		`{"index":1e3,"time":0,"process":0,"type":"invoke","f":"read","resource":"r","x":[-0.5e+3,01,1.,"\ud83d\ude00"]}`,
		` {"\u0069ndex":0, "time":0,"process":0,"type":"ok","f":"read","resource":"r","value":null,"token":null} `,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if err := matchesJSON(line); err != nil {
			t.Fatal(err)
		}
	})
}

// encoderEvents returns an event of every kind that fencecheck writes,
// the header first.
func encoderEvents() []Event {
	w := Event{Index: 3, Time: 3000, Process: 1, Type: TypeInvoke, F: FWrite, Resource: "report", Token: 42, HasToken: true, Value: "new-result", HasValue: true}
	r := Event{Index: 7, Time: 5000, Process: 2, Type: TypeInvoke, F: FRead, Resource: "report"}
	with := func(e Event, change func(*Event)) Event { change(&e); return e }
	return []Event{
		Header(),
		w,
		with(w, func(e *Event) { e.Type, e.Outcome = TypeOK, Accepted }),
		with(w, func(e *Event) { e.Type, e.Outcome = TypeOK, Rejected }),
		with(w, func(e *Event) { e.Trace = "4bf92f3577b34da6a3ce929d0e0e4736" }),
		with(w, func(e *Event) { e.Type, e.Error = TypeFail, "write token 42 to report: status 409" }),
		with(w, func(e *Event) { e.Type, e.Error = TypeInfo, "write token 42 to report: context deadline exceeded" }),
		with(w, func(e *Event) { e.Token, e.Value = 1<<64-1, "quote \" back\\slash \t\x01 é 😀 \xff" }),
		r,
		with(r, func(e *Event) {
			e.Type, e.Token, e.HasToken, e.Value, e.HasValue = TypeOK, 42, true, "new-result", true
		}),
		with(r, func(e *Event) { e.Type = TypeOK }),
		with(r, func(e *Event) { e.Type, e.Error = TypeInfo, "read report: connection reset" }),
		{Index: 0, Time: 1000, Process: -1, Actor: ActorLease, F: FAcquire, Resource: "report", Token: 41, HasToken: true, Holder: 0, HasHolder: true, Detail: "worker A receives token 41"},
		{Index: 1, Time: 2000, Process: -1, Actor: ActorLease, F: FExpire, Resource: "report", Token: 41, HasToken: true, Holder: 0, HasHolder: true},
		{Index: 2, Time: 2100, Process: -1, Actor: ActorLease, F: FRelease, Resource: "report", Token: 42, HasToken: true, Holder: 1, HasHolder: true},
		{Index: 4, Time: 3050, Process: -1, Actor: ActorNemesis, F: FStart, Fault: "pause"},
		{Index: 5, Time: 3060, Process: -1, Actor: ActorNemesis, F: FBegin, Fault: "delay", Detail: "write of worker 1 held 30ms"},
		{Index: 6, Time: 3070, Process: -1, Actor: ActorNemesis, F: FEnd, Fault: "delay"},
		{Index: 8, Time: 3080, Process: -1, Actor: ActorNemesis, F: FStop, Fault: "pause"},
		{Index: 9, Time: 1401, Process: -1, Actor: actorHarness, F: fInitial, Resource: "r0", Token: 246, HasToken: true, Value: "w3-j51", HasValue: true},
	}
}

// matchesJSON says how the decoder and encoding/json disagree on line, if
// they do.
func matchesJSON(line []byte) error {
	var e Event
	ourErr := newDecoder().decodeLine(line, &e)
	theirs, jsonErr := decodeJSON(line)
	switch {
	case ourErr != nil && jsonErr != nil:
		return nil
	case ourErr == nil && jsonErr != nil:
		return fmt.Errorf("accepted %q, which encoding/json rejects: %v", line, jsonErr)
	case ourErr != nil:
		return nil // the format asks more than JSON
	case !utf8.Valid(line):
		return fmt.Errorf("accepted %q, which is not valid UTF-8", line)
	}
	if ours := asJSON(&e); !reflect.DeepEqual(ours, theirs) {
		return fmt.Errorf("%q: decoded as %v, encoding/json reads %v", line, ours, theirs)
	}
	return nil
}

// knownFields are the fields the decoder gives a meaning.
var knownFields = map[string]bool{
	"index": true, "time": true, "process": true, "actor": true, "type": true, "f": true, "resource": true,
	"token": true, "value": true, "outcome": true, "holder": true, "fault": true, "detail": true, "error": true,
	"trace": true, "format": true,
}

// decodeJSON reads line with encoding/json, numbers as written, and keeps
// the fields the decoder knows; null and the empty string are left out,
// as the decoder reads them as absent (but an empty value is a value).
func decodeJSON(line []byte) (map[string]any, error) {
	if !json.Valid(line) {
		return nil, json.Unmarshal(line, new(any))
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("null is not an object")
	}
	for k, v := range m {
		if !knownFields[k] || v == nil || (v == "" && k != "value") {
			delete(m, k)
		}
	}
	return m, nil
}

// asJSON is e in the shape decodeJSON gives.
func asJSON(e *Event) map[string]any {
	m := map[string]any{
		"index": json.Number(strconv.FormatInt(e.Index, 10)),
		"time":  json.Number(strconv.FormatInt(e.Time, 10)),
	}
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	if e.isClient() {
		m["process"] = json.Number(strconv.Itoa(e.Process))
	}
	put("actor", e.Actor)
	put("type", e.Type.String())
	put("f", e.F)
	put("resource", e.Resource)
	if e.HasToken {
		m["token"] = json.Number(strconv.FormatUint(e.Token, 10))
	}
	if e.HasValue {
		m["value"] = e.Value
	}
	put("outcome", e.Outcome.String())
	if e.HasHolder {
		m["holder"] = json.Number(strconv.Itoa(e.Holder))
	}
	put("fault", e.Fault)
	put("detail", e.Detail)
	put("error", e.Error)
	put("trace", e.Trace)
	if e.Format != 0 {
		m["format"] = json.Number(strconv.Itoa(int(e.Format)))
	}
	return m
}
