package placeholders

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTranslate(t *testing.T) {
	t.Parallel()
	const (
		r = Resource
		k = Token
		v = Value
	)
	sqlite, postgres, mysql := SQLite, PostgreSQL, MySQL
	cases := []struct {
		name      string
		syntax    Syntax
		in        string
		out       string
		params    []Param
		returning bool
		err       string
	}{
		{name: "question marks repeat per use", syntax: sqlite(),
			in:  "UPDATE t SET value=:value, token=:token WHERE id=:resource AND token < :token",
			out: "UPDATE t SET value=?, token=? WHERE id=? AND token < ?", params: []Param{v, k, r, k}},
		{name: "dollar numbers are reused per name", syntax: postgres(),
			in:  "UPDATE t SET value=:value, token=:token WHERE id=:resource AND token < :token",
			out: "UPDATE t SET value=$1, token=$2 WHERE id=$3 AND token < $2", params: []Param{v, k, r}},
		{name: "casts are not placeholders", syntax: postgres(),
			in: "SELECT :token::bigint, '12:30'::time", out: "SELECT $1::bigint, '12:30'::time", params: []Param{k}},
		{name: "string literals are left alone", syntax: sqlite(),
			in: "SELECT ':token', 'it''s :value', :value", out: "SELECT ':token', 'it''s :value', ?", params: []Param{v}},
		{name: "quoted identifiers are left alone", syntax: postgres(),
			in: `SELECT "a:token" FROM t WHERE id = :resource`, out: `SELECT "a:token" FROM t WHERE id = $1`, params: []Param{r}},
		{name: "backticks are left alone", syntax: mysql(),
			in: "SELECT `a:token` FROM t WHERE id = :resource", out: "SELECT `a:token` FROM t WHERE id = ?", params: []Param{r}},
		{name: "MySQL backslash escapes a quote", syntax: mysql(),
			in: `SELECT 'it\'s :token', :value`, out: `SELECT 'it\'s :token', ?`, params: []Param{v}},
		{name: "MySQL double quotes are strings", syntax: mysql(),
			in: `SELECT "a \" :token", :value`, out: `SELECT "a \" :token", ?`, params: []Param{v}},
		{name: "standard strings take no backslash escape", syntax: postgres(),
			in: `SELECT 'a\', :value`, out: `SELECT 'a\', $1`, params: []Param{v}},
		{name: "E strings do", syntax: postgres(),
			in: `SELECT E'a\' :token', :value`, out: `SELECT E'a\' :token', $1`, params: []Param{v}},
		{name: "dollar quotes", syntax: postgres(),
			in: "SELECT $f$ :token $x$ $f$, $$:value$$, :resource", out: "SELECT $f$ :token $x$ $f$, $$:value$$, $1", params: []Param{r}},
		{name: "line comments", syntax: sqlite(),
			in: "SELECT 1 -- :token\n, :value", out: "SELECT 1 -- :token\n, ?", params: []Param{v}},
		{name: "MySQL hash comments", syntax: mysql(),
			in: "SELECT 1 # :token\n, :value", out: "SELECT 1 # :token\n, ?", params: []Param{v}},
		{name: "MySQL double dash needs a space", syntax: mysql(),
			in: "SELECT 1--:token", out: "SELECT 1--?", params: []Param{k}},
		{name: "block comments", syntax: sqlite(),
			in: "SELECT /* :token */ :value", out: "SELECT /* :token */ ?", params: []Param{v}},
		{name: "PostgreSQL block comments nest", syntax: postgres(),
			in: "SELECT /* /* :token */ :value */ :resource", out: "SELECT /* /* :token */ :value */ $1", params: []Param{r}},
		{name: "MySQL assignment", syntax: mysql(),
			in: "SELECT @x := :token", out: "SELECT @x := ?", params: []Param{k}},
		{name: "RETURNING is found", syntax: postgres(),
			in: "INSERT INTO t VALUES (:resource) returning 1", out: "INSERT INTO t VALUES ($1) returning 1", params: []Param{r}, returning: true},
		{name: "RETURNING in a literal is not", syntax: postgres(),
			in: "INSERT INTO t VALUES ('RETURNING')", out: "INSERT INTO t VALUES ('RETURNING')"},
		{name: "a longer word is not", syntax: sqlite(),
			in: "SELECT returning_rows FROM t", out: "SELECT returning_rows FROM t"},
		{name: "RETURNING of a WITH clause is not the statement's", syntax: postgres(),
			in:  "WITH d AS (DELETE FROM t RETURNING *) INSERT INTO u SELECT * FROM d",
			out: "WITH d AS (DELETE FROM t RETURNING *) INSERT INTO u SELECT * FROM d"},
		{name: "unknown name", syntax: sqlite(), in: "SELECT :tokn", err: "unknown placeholder :tokn"},
		{name: "question mark", syntax: mysql(), in: "SELECT ?", err: "positional placeholder ?"},
		{name: "PostgreSQL's ? is an operator", syntax: postgres(), in: "SELECT '{}'::jsonb ? 'a'", out: "SELECT '{}'::jsonb ? 'a'"},
		{name: "dollar number", syntax: postgres(), in: "SELECT $1", err: "positional placeholder"},
		{name: "unterminated literal", syntax: sqlite(), in: "SELECT 'abc", err: "unterminated '"},
		{name: "unterminated comment", syntax: sqlite(), in: "SELECT /* abc", err: "unterminated comment"},
		{name: "unterminated dollar quote", syntax: postgres(), in: "SELECT $a$ abc", err: "unterminated $a$"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, err := Translate(tc.in, tc.syntax)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.out, q.Text)
			assert.Equal(t, tc.params, q.Params)
			assert.Equal(t, tc.returning, q.Returning)
		})
	}
}

// TestOutline checks what the outline keeps of a statement's top level
// and what it leaves out: literals, quoted identifiers, comments,
// parenthesized groups, placeholders, numbers and operators.
func TestOutline(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		syntax Syntax
		in     string
		want   []string
	}{
		{"upper-cased words", MySQL(), "insert into t values (:resource, 1) on duplicate key update token = if(values(token) > token, 1, 2)",
			[]string{"INSERT", "INTO", "T", "VALUES", "(", "ON", "DUPLICATE", "KEY", "UPDATE", "TOKEN", "IF", "("}},
		{"comments between words", MySQL(), "INSERT INTO t VALUES (1) ON /* x */ DUPLICATE -- y\nKEY # z\n UPDATE a = 1",
			[]string{"INSERT", "INTO", "T", "VALUES", "(", "ON", "DUPLICATE", "KEY", "UPDATE", "A"}},
		{"words in literals and identifiers are not words", MySQL(),
			"INSERT INTO `on duplicate key update` VALUES ('on duplicate key update', \"on duplicate\") /* on duplicate key update */",
			[]string{"INSERT", "INTO", "VALUES", "("}},
		{"PostgreSQL quoted identifiers and dollar quotes", PostgreSQL(), `UPDATE "Select" SET v = $x$ RETURNING $x$ WHERE id = :resource`,
			[]string{"UPDATE", "SET", "V", "WHERE", "ID"}},
		{"rows, commas and statements", SQLite(), "INSERT INTO t VALUES (1), (2); SELECT 1;",
			[]string{"INSERT", "INTO", "T", "VALUES", "(", ",", "(", ";", "SELECT", ";"}},
		{"casts keep their type's word", PostgreSQL(), "SELECT :token::bigint", []string{"SELECT", "BIGINT"}},
		{"an unbalanced parenthesis does not hide the rest", SQLite(), "SELECT 1) FROM t", []string{"SELECT", "FROM", "T"}},
		{"non-ASCII letters are part of a word", PostgreSQL(), "UPDATE t SET v = 1 WHERE returningé = 2",
			[]string{"UPDATE", "T", "SET", "V", "WHERE", "RETURNINGé"}},
		{"only ASCII letters are folded", MySQL(), "select straße from ınsert", []string{"SELECT", "STRAßE", "FROM", "ıNSERT"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, err := Translate(tc.in, tc.syntax)
			require.NoError(t, err)
			assert.Equal(t, tc.want, q.Outline)
		})
	}
}

var syntaxes = map[string]Syntax{"sqlite": SQLite(), "postgres": PostgreSQL(), "mysql": MySQL()}

// FuzzTranslate checks, for any input the lexer accepts, in every
// dialect, that only placeholders change: putting the names back gives the
// input; and that nothing inside a string literal is ever a placeholder or
// a word of the outline.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{
		"UPDATE t SET value=:value, token=:token WHERE id=:resource AND token < :token",
		"SELECT :token::bigint, '12:30'::time",
		"SELECT 'it''s :value', \"a:b\", `c:d`, E'\\' :x', $f$ :token $f$ -- :y\n /* :z /* */ */ # :w\n",
		"INSERT INTO t VALUES (:resource) RETURNING 1",
		"INSERT INTO t VALUES (1), (2) ON DUPLICATE KEY UPDATE v = IF(VALUES(k) > k, 1, 2); CALL p()",
		"((", "))", ";;",
		"SELECT @x := :token, 1--:value, $1, ?",
		"", ":", "::", "'", "$", "$$", "/*", "--", "E'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stmt string) {
		for name, sx := range syntaxes {
			pieces, _, err := lex(stmt, sx)
			if err != nil {
				continue
			}
			var b strings.Builder
			for _, p := range pieces {
				if p.param != 0 {
					b.WriteString(":")
				}
				b.WriteString(p.text)
			}
			if b.String() != stmt {
				t.Fatalf("%s: lexing changed %q into %q", name, stmt, b.String())
			}
			literal := "SELECT '" + strings.ReplaceAll(strings.ReplaceAll(stmt, `\`, `\\`), "'", "''") + "'"
			q, err := Translate(literal, sx)
			if err != nil || len(q.Params) > 0 || !slices.Equal(q.Outline, []string{"SELECT"}) {
				t.Fatalf("%s: %q inside a literal: params %v, outline %q, error %v", name, stmt, q.Params, q.Outline, err)
			}
		}
	})
}

// FuzzOutline checks, for any input the lexer accepts, in every dialect,
// that the outline does not depend on the case of the ASCII letters (the
// engines fold only those: "İ" lower-cased by Unicode rules is an ASCII i
// and a combining dot, another identifier), and that a
// comment before the statement changes nothing: the shape of a write (an
// upsert, several statements) is read from the outline, so it must be
// what the server sees. (Comments between words are TestOutline's: where
// a space may be replaced by one depends on what the space is in.)
func FuzzOutline(f *testing.F) {
	for _, s := range []string{
		"INSERT INTO t VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE token = IF(VALUES(token) > token, VALUES(token), token)",
		"insert into `on duplicate key update` values ('on duplicate key update') -- on duplicate key update",
		"WITH d AS (DELETE FROM t RETURNING *) INSERT INTO u SELECT * FROM d; SELECT 1",
		"UPDATE t SET v = $x$ RETURNING $x$ WHERE id = :resource RETURNING id",
		"", "(", ")", ";", ",",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stmt string) {
		for name, sx := range syntaxes {
			q, err := Translate(stmt, sx)
			if err != nil {
				continue
			}
			if lower, err := Translate(lowerASCII(stmt), sx); err == nil && !slices.Equal(lower.Outline, q.Outline) {
				t.Fatalf("%s: %q outlines as %q, in lower case as %q", name, stmt, q.Outline, lower.Outline)
			}
			if c, err := Translate("/* c */ "+stmt, sx); err == nil && !slices.Equal(c.Outline, q.Outline) {
				t.Fatalf("%s: %q outlines as %q, with comments as %q", name, stmt, q.Outline, c.Outline)
			}
		}
	})
}

// lowerASCII lower-cases the ASCII letters of s only, as a server folding
// keywords does.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
