package schema

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func historyClasses(t *testing.T) *classes {
	t.Helper()
	doc, err := Document(HistoryLineFile)
	require.NoError(t, err)
	c, err := newClasses(doc)
	require.NoError(t, err, "the history line schema uses a keyword the line classes do not account for: every line would be validated in full, which takes the tests minutes")
	return c
}

// TestLineClassesAccountForTheSchema: the classes know what the schema
// asks of each property.
func TestLineClassesAccountForTheSchema(t *testing.T) {
	t.Parallel()
	c := historyClasses(t)
	for _, p := range []string{"index", "time", "process", "actor", "type", "f", "resource", "token", "value", "outcome", "holder", "fault", "detail", "error", "trace", "format"} {
		assert.Contains(t, c.props, p)
	}
	assert.True(t, c.props["type"].literals["invoke"])
	assert.Len(t, c.props["trace"].patterns, 1)
	assert.Contains(t, c.props["resource"].lengths, 1)
}

func TestNewClassesRefusesKeywordsItDoesNotAccountFor(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"minProperties":1}`,
		`{"additionalProperties":false}`,
		`{"properties":{"a":{"items":{}}}}`,
		`{"properties":{"a":{"multipleOf":2}}}`,
		`{"properties":{"a":{"required":["b"]}}}`,
		`{"properties":{"a":{"minimum":0.5}}}`,
		`{"properties":{"a":{"enum":[[1]]}}}`,
		`{"const":1}`,
		`{"$ref":"https://example.com/other.json"}`,
	} {
		v, err := jsonDoc(doc)
		require.NoError(t, err)
		_, err = newClasses(v)
		assert.Error(t, err, doc)
	}
}

func jsonDoc(s string) (any, error) {
	return jsonschema.UnmarshalJSON(strings.NewReader(s))
}

func TestScan(t *testing.T) {
	t.Parallel()
	ok := []string{
		`{}`,
		` {"index":0, "time":12,"actor":"harness","f":"header","format":1} ` + "\n",
		`{"value":null,"x":true,"y":false,"v":"é😀","n":999999999999999999}`,
	}
	for _, line := range ok {
		_, err := scan([]byte(line), nil)
		assert.NoError(t, err, line)
	}
	refused := []string{
		``, `[]`, `{`, `{"a":1`, `{"a":1}x`, `{"a":1,}`, `{"a" 1}`, `{a:1}`,
		`{"a":"x\"y"}`, `{"a":"x\u0041"}`, "{\"a\":\"x\ty\"}", "{\"a\":\"\xff\"}",
		`{"a":-1}`, `{"a":1.0}`, `{"a":1e3}`, `{"a":01}`, `{"a":1000000000000000000}`,
		`{"a":{}}`, `{"a":[]}`, `{"a":nul}`, `{"a":1,"a":2}`, `{"a\\b":1}`,
	}
	for _, line := range refused {
		_, err := scan([]byte(line), nil)
		assert.Error(t, err, line)
	}
}

// TestLineClassesAreSound: lines of one class get one verdict from the
// full validation, over random lines built of the values and names that
// matter to the schema; and validating through the classes gives what
// validating in full gives, line by line.
func TestLineClassesAreSound(t *testing.T) {
	t.Parallel()
	c := historyClasses(t)
	s, err := schemaOf(HistoryLineFile)
	require.NoError(t, err)
	names := []string{"index", "time", "process", "actor", "type", "f", "resource", "token", "value", "outcome",
		"holder", "fault", "detail", "error", "trace", "format", "other"}
	values := []string{
		`0`, `1`, `2`, `41`, `999999999999999999`, `9223372036854775807`, `9223372036854775808`,
		`18446744073709551615`, `18446744073709551616`, `-1`, `1.0`, `1.5`, `null`, `true`,
		`""`, `"x"`, `"r0"`, `"invoke"`, `"ok"`, `"fail"`, `"info"`, `"write"`, `"read"`, `"accepted"`, `"rejected"`,
		`"harness"`, `"header"`, `"initial"`, `"lease"`, `"acquire"`, `"4bf92f3577b34da6a3ce929d0e0e4736"`,
		`"00000000000000000000000000000000"`, `"4BF92F3577B34DA6A3CE929D0E0E4736"`, `"4bf92f35"`, `[]`, `{}`,
	}
	// Most random lines are invalid; start from valid ones and change a
	// few members, so that both verdicts are well represented.
	bases := [][][2]string{
		{{"index", "1"}, {"time", "2"}, {"process", "0"}, {"type", `"invoke"`}, {"f", `"write"`}, {"resource", `"r"`}, {"token", "1"}, {"value", `"v"`}},
		{{"index", "1"}, {"time", "2"}, {"process", "0"}, {"type", `"ok"`}, {"f", `"write"`}, {"resource", `"r"`}, {"outcome", `"accepted"`}},
		{{"index", "1"}, {"time", "2"}, {"process", "0"}, {"type", `"invoke"`}, {"f", `"read"`}, {"resource", `"r"`}, {"trace", `"4bf92f3577b34da6a3ce929d0e0e4736"`}},
		{{"index", "0"}, {"time", "0"}, {"actor", `"harness"`}, {"f", `"header"`}, {"format", "1"}},
		{{"index", "3"}, {"time", "4"}, {"actor", `"harness"`}, {"f", `"initial"`}, {"resource", `"r"`}, {"token", "7"}, {"value", `"v"`}},
		{{"index", "3"}, {"time", "4"}, {"actor", `"lease"`}, {"f", `"acquire"`}, {"resource", `"r"`}, {"token", "7"}, {"holder", "0"}},
	}
	// Every base with each of its members changed to each value, and
	// then random changes of a few members.
	var lines [][][2]string
	for _, base := range bases {
		for i := range base {
			for _, v := range values {
				m := append([][2]string(nil), base...)
				m[i][1] = v
				lines = append(lines, m)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		members := append([][2]string(nil), bases[r.IntN(len(bases))]...)
		for range 1 + r.IntN(3) {
			switch m := [2]string{names[r.IntN(len(names))], values[r.IntN(len(values))]}; r.IntN(3) {
			case 0:
				members = append(members, m)
			case 1:
				members[r.IntN(len(members))][1] = m[1]
			default:
				i := r.IntN(len(members))
				members = append(members[:i], members[i+1:]...)
			}
		}
		lines = append(lines, members)
	}
	verdicts := map[string]bool{}
	counts := map[bool]int{}
	for _, members := range lines {
		var b strings.Builder
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + m[0] + `":` + m[1])
		}
		b.WriteByte('}')
		line := []byte(b.String())
		full := validateFull(s, line, true, false) == nil
		counts[full]++
		v := lineValidator{schema: s, classes: c, valid: map[string]bool{}}
		assert.Equal(t, full, v.validate(line, true, false) == nil, "%s", line)
		scanned, err := scan(line, nil)
		if err != nil {
			continue
		}
		key := string(c.key(nil, scanned))
		if want, ok := verdicts[key]; ok {
			require.Equal(t, want, full, "%s is of a class whose other lines get the other verdict", line)
		}
		verdicts[key] = full
	}
	assert.Greater(t, counts[true], 200, "valid lines")
	assert.Greater(t, counts[false], 200, "invalid lines")
	assert.Greater(t, len(verdicts), 100, "classes")
}

// TestClassesKeepTheHeaderRule: a header that is not the first line is
// refused on the fast path too.
func TestClassesKeepTheHeaderRule(t *testing.T) {
	t.Parallel()
	header := `{"index":0,"time":0,"actor":"harness","f":"header","format":1}` + "\n"
	err := ValidateHistory(bytes.NewReader([]byte(header+header)), "h.jsonl")
	require.Error(t, err)
	assert.Equal(t, "h.jsonl:2: a header is only ever the first line of a history", err.Error())
}

// FuzzLineClasses: whatever the line, a line the scan takes is the
// object encoding/json reads, member by member, and validating it through
// the classes gives the verdict of validating it in full.
func FuzzLineClasses(f *testing.F) {
	for _, line := range []string{
		`{"index":0,"time":0,"actor":"harness","f":"header","format":1}`,
		`{"index":1,"time":2,"process":0,"type":"invoke","f":"write","resource":"r","token":1,"value":"v","trace":"4bf92f3577b34da6a3ce929d0e0e4736"}`,
		`{"index":1,"time":2,"process":0,"type":"ok","f":"write","resource":"r","outcome":"accepted"}`,
		`{"index":3,"time":4,"actor":"lease","f":"acquire","resource":"r","token":7,"holder":0,"detail":"é"}`,
		`{"index":1,"index":2}`, `{"a":01}`, `{"a":"\u0041"}`, ` {} `,
	} {
		f.Add([]byte(line))
	}
	s, err := schemaOf(HistoryLineFile)
	require.NoError(f, err)
	doc, err := Document(HistoryLineFile)
	require.NoError(f, err)
	c, err := newClasses(doc)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, line []byte) {
		members, err := scan(line, nil)
		if err == nil {
			v, jerr := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			require.NoError(t, jerr, "the scan took %q", line)
			obj, ok := v.(map[string]any)
			require.True(t, ok, "the scan took %q", line)
			require.Len(t, obj, len(members))
			for _, m := range members {
				want, ok := obj[m.name]
				require.True(t, ok, "%q: member %q", line, m.name)
				got, gerr := jsonschema.UnmarshalJSON(bytes.NewReader(m.raw))
				if m.kind == '"' {
					got, gerr = string(m.raw), nil
				}
				require.NoError(t, gerr)
				require.Equal(t, want, got, "%q: member %q", line, m.name)
			}
		}
		full := validateFull(s, line, true, false) == nil
		for range 2 { // the second time, through the class the first learned
			v := lineValidator{schema: s, classes: c, valid: map[string]bool{}}
			require.Equal(t, full, v.validate(line, true, false) == nil, "%q", line)
		}
	})
}
