package receiver

import (
	"fmt"
	"net/url"
	"strings"
)

// ParseStore opens the store a spec names:
//
//	memory            the memory store (also the empty spec)
//	sqlite:PATH       a SQLite file at PATH, taken literally: every byte is
//	                  the file's name, '?', '#', '%' and spaces included
//	                  (sqlite://PATH is the same, so sqlite:///abs/path works)
//	sqlite:file:URI   a SQLite URI filename (sqlite.org/uri.html), passed to
//	                  SQLite as written, for its parameters (mode=ro, vfs=…);
//	                  it must not set the pragmas the store sets itself
//
// A file whose name starts with "file:" is named as a path with a
// directory: sqlite:./file:x.db.
func ParseStore(spec string) (Store, error) {
	dsn, memory, err := storeDSN(spec)
	if err != nil {
		return nil, err
	}
	if memory {
		return NewMemory(), nil
	}
	return openSQLite(dsn, spec)
}

// storeDSN returns the SQLite driver's DSN for a spec, or memory when the
// spec names the memory store.
func storeDSN(spec string) (dsn string, memory bool, err error) {
	if spec == "" || spec == "memory" {
		return "", true, nil
	}
	rest, ok := strings.CutPrefix(spec, "sqlite:")
	if !ok {
		return "", false, fmt.Errorf("store %q: want memory, sqlite:PATH or sqlite:file:URI", spec)
	}
	if strings.HasPrefix(rest, "file:") {
		dsn, err := uriDSN(rest)
		if err != nil {
			return "", false, fmt.Errorf("store %q: %w", spec, err)
		}
		return dsn, false, nil
	}
	path := strings.TrimPrefix(rest, "//")
	switch {
	case path == "":
		return "", false, fmt.Errorf("store %q: sqlite: names no path", spec)
	case strings.IndexByte(path, 0) >= 0:
		return "", false, fmt.Errorf("store %q: a path cannot hold a NUL byte", spec)
	}
	return fileURI(path) + "?" + pragmaParams(), false, nil
}

// fileURI is the SQLite URI filename of a plain path. An absolute path
// gets an empty authority (file:///abs), so one starting with "//" is not
// read as a host; a relative one starts with "./", so ":memory:" is a
// file of that name, not SQLite's in-memory database.
func fileURI(path string) string {
	var b strings.Builder
	b.WriteString("file:")
	if strings.HasPrefix(path, "/") {
		b.WriteString("//")
	} else {
		b.WriteString("./")
	}
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
			c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// uriDSN checks a file: URI and adds the store's pragmas to its query.
func uriDSN(uri string) (string, error) {
	_, query, hasQuery := strings.Cut(uri, "?")
	query, _, _ = strings.Cut(query, "#")
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("the URI's query: %w", err)
	}
	for key, values := range q {
		if set := setsStorePragma(key, values); set != "" {
			return "", fmt.Errorf("the URI sets %s, which the store sets itself", set)
		}
	}
	if strings.Contains(uri, "#") {
		return "", fmt.Errorf("the URI has a fragment ('#'), which SQLite would drop with everything after it")
	}
	sep := "?"
	if hasQuery {
		sep = "&"
	}
	return uri + sep + pragmaParams(), nil
}

// setsStorePragma returns the pragma a URI parameter sets that the store
// sets too, or "".
func setsStorePragma(key string, values []string) string {
	aliases := map[string]string{
		"_busy_timeout": "busy_timeout", "_timeout": "busy_timeout",
		"_journal_mode": "journal_mode", "_journal": "journal_mode",
		"_synchronous": "synchronous", "_sync": "synchronous",
	}
	if p, ok := aliases[strings.ToLower(key)]; ok {
		return p
	}
	if key != "_pragma" {
		return ""
	}
	for _, v := range values {
		v = strings.ToLower(strings.TrimSpace(v))
		for _, p := range storePragmas {
			if strings.HasPrefix(v, p.name) {
				return p.name
			}
		}
	}
	return ""
}

// pragmaParams is the DSN query that sets the store's pragmas on every
// connection.
func pragmaParams() string {
	q := make([]string, len(storePragmas))
	for i, p := range storePragmas {
		q[i] = "_pragma=" + url.QueryEscape(p.name+"("+p.set+")")
	}
	return strings.Join(q, "&")
}
