package httptarget

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// outcomeOf maps one answer through an adapter's write rules; 0 is an
// unknown outcome.
func outcomeOf(t *testing.T, adapter string, r *response) histories.Outcome {
	t.Helper()
	a, err := ParseAdapter([]byte(adapter))
	require.NoError(t, err)
	c, err := a.compile()
	require.NoError(t, err)
	out, err := c.outcome(r)
	if err != nil {
		return 0
	}
	return out
}

func TestOutcomeRules(t *testing.T) {
	t.Parallel()
	rules := func(rs ...string) string {
		return `{"write": {"outcomes": [` + strings.Join(rs, ",") + `]}}`
	}
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return h
	}
	const acc, rej = histories.Accepted, histories.Rejected
	cases := []struct {
		name    string
		adapter string
		resp    response
		want    histories.Outcome
	}{
		{"status list", rules(`{"status": [200, 201], "outcome": "accepted"}`), response{status: 201}, acc},
		{"status not listed: unknown", rules(`{"status": [200], "outcome": "accepted"}`), response{status: 204}, 0},
		{"status regex", rules(`{"match": {"from": "status", "regex": "^2"}, "outcome": "accepted"}`), response{status: 299}, acc},
		{"status equals number", rules(`{"match": {"from": "status", "equals": 409}, "outcome": "rejected"}`), response{status: 409}, rej},
		{"status equals string", rules(`{"match": {"from": "status", "equals": "409"}, "outcome": "rejected"}`), response{status: 409}, rej},
		{"body prefix", rules(`{"match": {"from": "body", "prefix": "STALE"}, "outcome": "rejected"}`), response{status: 200, body: []byte("STALE 41<42")}, rej},
		{"body equals is whole", rules(`{"match": {"from": "body", "equals": "OK"}, "outcome": "accepted"}`), response{status: 200, body: []byte("OK then")}, 0},
		{"header equals", rules(`{"match": {"from": "header:X-Result", "equals": "stale"}, "outcome": "rejected"}`), response{status: 409, header: hdr("X-Result", "stale")}, rej},
		{"header absent", rules(`{"match": {"from": "header:X-Result", "regex": ".*"}, "outcome": "rejected"}`), response{status: 409, header: hdr()}, 0},
		{"header values joined", rules(`{"match": {"from": "header:X-Result", "equals": "a, b"}, "outcome": "accepted"}`), response{status: 200, header: hdr("X-Result", "a", "X-Result", "b")}, acc},
		{"nested field regex", rules(`{"match": {"from": "field:data.error", "regex": "^stale token [0-9]+ < [0-9]+$"}, "outcome": "rejected"}`),
			response{status: 200, body: []byte(`{"data": {"error": "stale token 41 < 42"}}`)}, rej},
		{"field regex is unanchored", rules(`{"match": {"from": "field:e", "regex": "stale"}, "outcome": "rejected"}`), response{status: 200, body: []byte(`{"e": "not stale at all"}`)}, rej},
		{"field equals null matches missing", rules(`{"match": {"from": "field:error", "equals": null}, "outcome": "accepted"}`), response{status: 200, body: []byte(`{}`)}, acc},
		{"field prefix does not match missing", rules(`{"match": {"from": "field:error", "prefix": ""}, "outcome": "rejected"}`), response{status: 200, body: []byte(`{}`)}, 0},
		{"field equals object, keys in any order", rules(`{"match": {"from": "field:r", "equals": {"a": 1, "b": [true]}}, "outcome": "accepted"}`),
			response{status: 200, body: []byte(`{"r": {"b": [true], "a": 1}}`)}, acc},
		{"field equals number is exact", rules(`{"match": {"from": "field:v", "equals": 18446744073709551615}, "outcome": "accepted"}`),
			response{status: 200, body: []byte(`{"v": 18446744073709551614}`)}, 0},
		{"number field as text", rules(`{"match": {"from": "field:code", "prefix": "4"}, "outcome": "rejected"}`), response{status: 200, body: []byte(`{"code": 409}`)}, rej},
		{"string true is not true", rules(`{"match": {"from": "field:ok", "equals": true}, "outcome": "accepted"}`), response{status: 200, body: []byte(`{"ok": "true"}`)}, 0},
		{"body not JSON: field does not match", rules(`{"match": {"from": "field:ok", "equals": null}, "outcome": "accepted"}`), response{status: 200, body: []byte(`ok`)}, 0},
		{"trailing garbage is not JSON", rules(`{"match": {"from": "field:ok", "equals": true}, "outcome": "accepted"}`), response{status: 200, body: []byte(`{"ok": true} {"ok": false}`)}, 0},
		{"status and match both hold", rules(`{"status": [200], "match": {"from": "field:ok", "equals": true}, "outcome": "accepted"}`), response{status: 500, body: []byte(`{"ok": true}`)}, 0},
		{"first rule wins", rules(`{"match": {"from": "body", "prefix": "stale"}, "outcome": "rejected"}`, `{"status": [200], "outcome": "accepted"}`),
			response{status: 200, body: []byte("stale")}, rej},
		{"an unknown rule stops the search", rules(`{"match": {"from": "body", "prefix": "stale: internal"}, "outcome": "unknown"}`, `{"match": {"from": "body", "prefix": "stale"}, "outcome": "rejected"}`),
			response{status: 200, body: []byte("stale: internal error")}, 0},
		{"no rule matched: unknown, never a default", rules(`{"status": [409], "outcome": "rejected"}`), response{status: 200}, 0},
		{"legacy default protocol", `{}`, response{status: 204}, acc},
		{"legacy default stale", `{}`, response{status: 412}, rej},
		{"legacy field values", `{"write": {"outcome_from": "field:error", "accepted_values": [null], "stale_values": ["stale"]}}`, response{status: 200, body: []byte(`{"error": "stale"}`)}, rej},
		{"legacy field values, other status", `{"write": {"outcome_from": "field:error", "accepted_values": [null], "stale_values": ["stale"]}}`, response{status: 500, body: []byte(`{}`)}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.resp.header == nil {
				tc.resp.header = http.Header{}
			}
			assert.Equal(t, tc.want, outcomeOf(t, tc.adapter, &tc.resp))
		})
	}
}

// TestUnknownNamesTheAnswer: an unmatched answer's error says so and
// quotes the body's start.
func TestUnknownNamesTheAnswer(t *testing.T) {
	t.Parallel()
	a, err := ParseAdapter([]byte(`{"write": {"outcomes": [{"status": [204], "outcome": "accepted"}, {"status": [503], "outcome": "unknown"}]}}`))
	require.NoError(t, err)
	c, err := a.compile()
	require.NoError(t, err)
	_, err = c.outcome(&response{status: 200, body: []byte(`{"ok": false}`)})
	assert.EqualError(t, err, `status 200, which no outcome rule matches: "{\"ok\": false}"`)
	_, err = c.outcome(&response{status: 503})
	assert.EqualError(t, err, `status 503, unknown by write.outcomes[1]`)
}

func TestAdapterFileErrorsNameFileAndField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json string
		want       []string // lines, after "adapter.json: "
	}{
		{"bad regex", `{"write": {"outcomes": [{"status": [200], "outcome": "accepted"}, {"status": [409], "outcome": "rejected"},
			{"match": {"from": "body", "regex": "(("}, "outcome": "rejected"}]}}`,
			[]string{"write.outcomes[2].match.regex: error parsing regexp: missing closing ): `((`"}},
		{"several problems", `{"write": {"outcomes": [{"outcome": "accepted"}, {"match": {"from": "cookie:x", "prefix": "a", "regex": "b"}, "outcome": "stale"}]}}`,
			[]string{
				"write.outcomes[0].status: a rule needs status, match or both",
				`write.outcomes[1].match.from: "cookie:x": want status, body, header:NAME or field:PATH`,
				"write.outcomes[1].match: want exactly one of equals, prefix and regex, got 2",
				`write.outcomes[1].outcome: "stale": want accepted, rejected or unknown`,
			}},
		{"equals on text needs a string", `{"write": {"outcomes": [{"match": {"from": "body", "equals": true}, "outcome": "accepted"}]}}`,
			[]string{"write.outcomes[0].match.equals: true is not a JSON string: body text is compared with a string"}},
		{"status out of range", `{"read": {"not_found": [{"status": [4040]}]}}`,
			[]string{"read.not_found[0].status[0]: 4040 is not an HTTP status (100 to 599)"}},
		{"mixed old and new", `{"write": {"stale_status": [409], "outcomes": [{"status": [200], "outcome": "accepted"}]}}`,
			[]string{"write.outcomes: cannot be combined with accepted_status, stale_status, outcome_from, accepted_values or stale_values"}},
		{"resource nowhere", `{"write": {"path": "/api", "json_body": "{\"v\": {value}}"}}`,
			[]string{`write.path: "/api" has no {resource}, and no query, header or json_body has: every resource would be the same to the receiver`}},
		{"quoted placeholder", `{"read": {"path": "/get", "json_body": "{\"k\": \"{resource}\"}"}}`,
			[]string{`read.json_body: not JSON once filled in ({"k": ""r""}); placeholders are JSON values, write {resource}, not "{resource}"`}},
		{"typo in a placeholder", `{"write": {"path": "/r/{resorce}", "query": {"k": "{resource}"}}}`,
			[]string{"write.path: unknown placeholder {resorce}: want {resource}, {token}, {value}"}},
		{"token in a read", `{"read": {"headers": {"X-Key": "{resource}", "X-T": "{token}"}}}`,
			[]string{`read.headers["X-T"]: unknown placeholder {token}: want {resource}, {trace_id}`}},
		{"template token nowhere", `{"write": {"token_in": "template"}}`,
			[]string{`write.token_in: "template" needs {token} or {token_string} in a template (path, query, headers, json_body)`}},
		{"wrong type", "{\"write\": {\n  \"outcomes\": [{\"status\": \"200\"}]}}",
			[]string{"line 2, column 32: write.outcomes.status: got JSON string, want []int"}},
		{"bad method", `{"write": {"method": "PUT X"}}`, []string{`write.method: "PUT X" is not an HTTP method`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(schema.TempDir(t), "adapter.json")
			require.NoError(t, os.WriteFile(path, []byte(tc.json), 0o644))
			_, err := LoadAdapter(path)
			require.Error(t, err)
			var want []string
			for _, l := range tc.want {
				want = append(want, path+": "+l)
			}
			assert.Equal(t, strings.Join(want, "\n"), err.Error())
		})
	}
}

// recorder is a receiver that records the requests it gets and answers
// with the body and status it is given.
type recorder struct {
	mu       sync.Mutex
	requests []*http.Request
	bodies   []string
	status   int
	answer   string
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.requests, rec.bodies = append(rec.requests, r), append(rec.bodies, string(b))
	status, answer := rec.status, rec.answer
	rec.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write([]byte(answer))
}

func (rec *recorder) last() (*http.Request, string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.requests[len(rec.requests)-1], rec.bodies[len(rec.bodies)-1]
}

// TestTemplatesCarryResourceTokenValue: the resource may live only in the
// body, a query parameter or a header, at a fixed path.
func TestTemplatesCarryResourceTokenValue(t *testing.T) {
	t.Parallel()
	rec := &recorder{status: 200, answer: `{"ok": true}`}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	a, err := ParseAdapter([]byte(`{"write": {"method": "POST", "path": "/api", "token_in": "template",
		"query": {"k": "{resource}", "t": "{token}"}, "headers": {"X-Key": "{resource}", "X-Token": "{token}", "X-Value": "{value}"},
		"json_body": "{\"key\": {resource}, \"tok\": {token_string}, \"v\": {value}}",
		"outcomes": [{"status": [200], "match": {"from": "field:ok", "equals": true}, "outcome": "accepted"}]}}`))
	require.NoError(t, err)
	o := DefaultOptions()
	o.Adapter = a
	tgt, err := New(srv.URL+"?api_key=k", o)
	require.NoError(t, err)
	out, err := tgt.Write(context.Background(), "a b/c&d", 1<<64-1, `v "1"`)
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
	req, body := rec.last()
	assert.Equal(t, "/api", req.URL.Path)
	assert.Equal(t, "a b/c&d", req.URL.Query().Get("k"))
	assert.Equal(t, "18446744073709551615", req.URL.Query().Get("t"))
	assert.Equal(t, "k", req.URL.Query().Get("api_key"))
	assert.Equal(t, "a b/c&d", req.Header.Get("X-Key"))
	assert.Equal(t, "18446744073709551615", req.Header.Get("X-Token"))
	assert.Equal(t, `v "1"`, req.Header.Get("X-Value"))
	assert.Empty(t, req.Header.Get(TokenHeader))
	var got map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, map[string]string{"key": "a b/c&d", "tok": "18446744073709551615", "v": `v "1"`}, got)

	// A tokenless write leaves out the entries that carry the token.
	w, err := targets.Tokenless(tgt)
	require.Error(t, err, "the body template carries the token")
	assert.Nil(t, w)
	a.Write.JSONBody = `{"key": {resource}, "v": {value}}`
	o.Adapter = a
	tgt, err = New(srv.URL, o)
	require.NoError(t, err)
	w, err = targets.Tokenless(tgt)
	require.NoError(t, err)
	_, err = w.WriteWithoutToken(context.Background(), "r", "v")
	require.NoError(t, err)
	req, _ = rec.last()
	assert.Equal(t, "r", req.URL.Query().Get("k"))
	assert.False(t, req.URL.Query().Has("t"))
	assert.Empty(t, req.Header.Values("X-Token"))
	assert.Equal(t, "r", req.Header.Get("X-Key"))
}

// TestReadTokensFromNestedFields: a token read from a field may be a JSON
// number or a decimal string, exact up to 2^64-1; anything else is an
// unknown read, never a guess.
func TestReadTokensFromNestedFields(t *testing.T) {
	t.Parallel()
	a, err := ParseAdapter([]byte(`{"read": {"value_from": "field:data.item.value", "token_from": "field:data.item.version",
		"not_found": [{"status": [404]}, {"status": [200], "match": {"from": "field:data.item", "equals": null}}]}}`))
	require.NoError(t, err)
	c, err := a.compile()
	require.NoError(t, err)
	cases := []struct {
		body    string
		want    targets.Reading
		wantErr string
	}{
		{`{"data": {"item": {"value": "x", "version": 42}}}`, targets.Reading{Found: true, Value: "x", Token: 42, HasToken: true}, ""},
		{`{"data": {"item": {"value": "x", "version": "42"}}}`, targets.Reading{Found: true, Value: "x", Token: 42, HasToken: true}, ""},
		{`{"data": {"item": {"value": "x", "version": 18446744073709551615}}}`, targets.Reading{Found: true, Value: "x", Token: 1<<64 - 1, HasToken: true}, ""},
		{`{"data": {"item": {"value": "x", "version": 9007199254740993}}}`, targets.Reading{Found: true, Value: "x", Token: 1<<53 + 1, HasToken: true}, ""},
		{`{"data": {"item": {"value": "x", "version": "18446744073709551615"}}}`, targets.Reading{Found: true, Value: "x", Token: 1<<64 - 1, HasToken: true}, ""},
		{`{"data": {"item": null}}`, targets.Reading{HasToken: true}, ""},
		{`{"data": {}}`, targets.Reading{HasToken: true}, ""},
		{`{"data": {"item": {"value": "x", "version": 18446744073709551616}}}`, targets.Reading{}, "not a decimal unsigned 64-bit integer"},
		{`{"data": {"item": {"value": "x", "version": 4.2e1}}}`, targets.Reading{}, "token"},
		{`{"data": {"item": {"value": "x", "version": 42.0}}}`, targets.Reading{}, "token"},
		{`{"data": {"item": {"value": "x", "version": -1}}}`, targets.Reading{}, "token"},
		{`{"data": {"item": {"value": "x", "version": "+42"}}}`, targets.Reading{}, "token"},
		{`{"data": {"item": {"value": "x", "version": true}}}`, targets.Reading{}, "not a string"},
		{`{"data": {"item": {"value": "x"}}}`, targets.Reading{}, "missing"},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			t.Parallel()
			got, err := c.reading(&response{status: 200, header: http.Header{}, body: []byte(tc.body)})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
