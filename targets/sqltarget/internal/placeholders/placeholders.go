// Package placeholders translates statements written with the named
// placeholders :resource, :token and :value into a driver's placeholder
// style, lexing just enough SQL to leave literals, quoted identifiers,
// comments and PostgreSQL casts alone, and outlines the statement's top
// level (its keywords outside all of those and outside parentheses) so
// that the caller can tell what kind of statement it is. It has a package
// of its own so that fuzzing it does not instrument the database drivers.
package placeholders

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Param names what a driver placeholder is bound to.
type Param uint8

const (
	Resource Param = iota + 1
	Token
	Value
)

var names = map[string]Param{"resource": Resource, "token": Token, "value": Value}

// Syntax is what the placeholder translator must know about a dialect's
// lexical rules, so that a colon inside a literal, a comment, a quoted
// identifier or a PostgreSQL cast is never taken for a placeholder.
type Syntax struct {
	DollarParams     bool // placeholders are $1, $2, … (PostgreSQL); otherwise ?
	BackslashEscapes bool // '\'' escapes a quote in every string (MySQL)
	EscapeStrings    bool // E'…' strings take backslash escapes (PostgreSQL)
	DollarQuotes     bool // $tag$…$tag$ strings (PostgreSQL)
	NestedComments   bool // /* /* */ */ nests (PostgreSQL)
	MySQLComments    bool // # starts a comment, and -- only when a space follows (MySQL)
}

// SQLite is SQLite's lexical rules: the zero Syntax.
func SQLite() Syntax { return Syntax{} }

// PostgreSQL is PostgreSQL's lexical rules.
func PostgreSQL() Syntax {
	return Syntax{DollarParams: true, EscapeStrings: true, DollarQuotes: true, NestedComments: true}
}

// MySQL is MariaDB's and MySQL's lexical rules.
func MySQL() Syntax { return Syntax{BackslashEscapes: true, MySQLComments: true} }

// Query is a statement translated for a driver.
type Query struct {
	Text   string  // the statement with the driver's placeholders
	Params []Param // what each driver placeholder is bound to, in order
	// Returning: RETURNING is a word of the outline (a clause of the
	// statement itself, not of a subquery or a WITH clause), so its
	// result is rows.
	Returning bool
	// Outline is the statement's top level: its words, upper-cased, and
	// "(" for each parenthesized group, "," and ";", in order; nothing
	// inside a literal, a quoted identifier, a comment or parentheses, and
	// no placeholders, numbers or operators. "on duplicate /* x */ key
	// update" outlines as ON DUPLICATE KEY UPDATE, and a backquoted column
	// named `on duplicate key update` not at all.
	Outline []string
}

// piece is a run of statement text, or one named placeholder.
type piece struct {
	text  string
	param Param // non-zero: a placeholder, and text is its name
}

// Translate turns a statement with the named placeholders :resource,
// :token and :value into the driver's placeholder style. It leaves alone
// everything inside string literals, quoted identifiers and comments, and
// PostgreSQL's :: casts. An unknown name (:tokn) or a positional
// placeholder (?, $1) is an error: the statement would otherwise fail at
// every write, or bind the wrong value.
func Translate(stmt string, sx Syntax) (Query, error) {
	pieces, outline, err := lex(stmt, sx)
	if err != nil {
		return Query{}, err
	}
	q := Query{Returning: slices.Contains(outline, "RETURNING"), Outline: outline}
	var b strings.Builder
	numbers := make(map[Param]int)
	for _, p := range pieces {
		if p.param == 0 {
			b.WriteString(p.text)
			continue
		}
		if !sx.DollarParams {
			b.WriteByte('?')
			q.Params = append(q.Params, p.param)
			continue
		}
		n, ok := numbers[p.param]
		if !ok {
			q.Params = append(q.Params, p.param)
			n = len(q.Params)
			numbers[p.param] = n
		}
		b.WriteString("$" + strconv.Itoa(n))
	}
	q.Text = b.String()
	return q, nil
}

// lex splits stmt into text and placeholders, and outlines its top level
// (see Query.Outline).
func lex(stmt string, sx Syntax) (pieces []piece, outline []string, err error) {
	start := 0 // start of the pending text piece
	depth := 0 // parentheses open at i
	i := 0
	for i < len(stmt) {
		c := stmt[i]
		switch {
		case c == '(':
			if depth == 0 {
				outline = append(outline, "(")
			}
			depth++
			i++
		case c == ')':
			// An unbalanced ) is the server's to refuse; the outline
			// goes on at the top level.
			depth = max(depth-1, 0)
			i++
		case (c == ',' || c == ';') && depth == 0:
			outline = append(outline, string(c))
			i++
		case c == '\'' || (c == '"' && sx.BackslashEscapes):
			backslash := sx.BackslashEscapes || (sx.EscapeStrings && isEscapePrefix(stmt, i))
			i, err = skipQuoted(stmt, i, c, backslash)
		case c == '"' || c == '`':
			i, err = skipQuoted(stmt, i, c, false)
		case c == '-' && isDashComment(stmt[i:], sx.MySQLComments), c == '#' && sx.MySQLComments:
			i = skipLine(stmt, i)
		case c == '/' && strings.HasPrefix(stmt[i:], "/*"):
			i, err = skipBlockComment(stmt, i, sx.NestedComments)
		case c == '$' && sx.DollarQuotes && dollarTag(stmt, i) != "":
			i, err = skipDollarQuoted(stmt, i)
		case c == '$' && sx.DollarParams && i+1 < len(stmt) && isDigit(stmt[i+1]):
			return nil, nil, fmt.Errorf("positional placeholder at byte %d: use :resource, :token or :value", i)
		case c == '?' && !sx.DollarParams:
			return nil, nil, fmt.Errorf("positional placeholder ? at byte %d: use :resource, :token or :value", i)
		case c == ':' && strings.HasPrefix(stmt[i:], "::"):
			i += 2 // a cast, not a placeholder
		case c == ':' && i+1 < len(stmt) && isIdentStart(stmt[i+1]):
			name := identAt(stmt, i+1)
			p, ok := names[name]
			if !ok {
				return nil, nil, fmt.Errorf("unknown placeholder :%s at byte %d: want :resource, :token or :value", name, i)
			}
			pieces = appendText(pieces, stmt[start:i])
			pieces = append(pieces, piece{text: name, param: p})
			i += 1 + len(name)
			start = i
		case isIdentStart(c):
			word := identAt(stmt, i)
			if depth == 0 {
				outline = append(outline, upperASCII(word))
			}
			i += len(word)
		default:
			i++
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return appendText(pieces, stmt[start:]), outline, nil
}

func appendText(pieces []piece, text string) []piece {
	if text == "" {
		return pieces
	}
	return append(pieces, piece{text: text})
}

// skipQuoted returns the index after the literal or quoted identifier that
// opens at i with quote; a doubled quote is part of it, and so is a
// backslash-escaped character when backslash is set.
func skipQuoted(s string, i int, quote byte, backslash bool) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == quote && j+1 < len(s) && s[j+1] == quote:
			j++
		case s[j] == quote:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated %c at byte %d", quote, i)
}

// isEscapePrefix reports whether the quote at i opens a PostgreSQL E'…'
// string: it follows an E that is not the end of a longer word.
func isEscapePrefix(s string, i int) bool {
	if i == 0 || (s[i-1] != 'E' && s[i-1] != 'e') {
		return false
	}
	return i == 1 || !isIdentPart(s[i-2])
}

// isDashComment reports whether s starts with a -- comment. MySQL wants
// whitespace after the dashes: 1--1 is one minus minus one there.
func isDashComment(s string, mysql bool) bool {
	if !strings.HasPrefix(s, "--") {
		return false
	}
	return !mysql || len(s) == 2 || s[2] <= ' '
}

func skipLine(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

func skipBlockComment(s string, i int, nested bool) (int, error) {
	depth := 0
	for j := i; j < len(s)-1; j++ {
		switch {
		case s[j] == '/' && s[j+1] == '*' && (nested || depth == 0):
			depth++
			j++
		case s[j] == '*' && s[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("unterminated comment at byte %d", i)
}

// dollarTag returns the $tag$ that opens a dollar-quoted string at i, or
// "" if there is none. The tag is empty or an identifier that does not
// start with a digit, so $1 is not one.
func dollarTag(s string, i int) string {
	j := i + 1
	if j < len(s) && isIdentStart(s[j]) {
		j += len(identAt(s, j))
	}
	if j < len(s) && s[j] == '$' && !(i > 0 && isIdentPart(s[i-1])) {
		return s[i : j+1]
	}
	return ""
}

func skipDollarQuoted(s string, i int) (int, error) {
	tag := dollarTag(s, i)
	end := strings.Index(s[i+len(tag):], tag)
	if end < 0 {
		return 0, fmt.Errorf("unterminated %s string at byte %d", tag, i)
	}
	return i + len(tag) + end + len(tag), nil
}

func identAt(s string, i int) string {
	j := i
	for j < len(s) && isIdentPart(s[j]) {
		j++
	}
	return s[i:j]
}

// isIdentStart reports whether c may start an unquoted identifier. Every
// byte of a multi-byte UTF-8 character counts as a letter, as in the
// engines' own scanners (PostgreSQL's ident_start is [A-Za-z\200-\377_],
// MySQL allows U+0080 to U+FFFF, SQLite any character above 0x7f): the
// server reads "returningé" as one identifier, not as RETURNING.
func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

// upperASCII upper-cases the ASCII letters of word only: keywords are
// ASCII, and the engines fold only those (strings.ToUpper would turn a
// non-ASCII identifier into something that may spell a keyword).
func upperASCII(word string) string {
	b := []byte(word)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
