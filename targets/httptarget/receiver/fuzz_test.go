package receiver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// FuzzHandler sends arbitrary PUTs to a receiver holding token 1000 and
// checks the protocol's promises: a malformed request gets 400 or 413 and
// changes nothing; a well-formed one is applied exactly when its token is
// above the highest; the handler never answers anything else.
func FuzzHandler(f *testing.F) {
	f.Add("r", "1001", []byte("v"))
	f.Add("r", "999", []byte("old"))
	f.Add("r", "1000", []byte("equal"))
	f.Add("other", "1", []byte(""))
	f.Add("r", "18446744073709551615", []byte("max"))
	f.Add("r", "18446744073709551616", []byte("overflow"))
	f.Add("r", "0", []byte("zero"))
	f.Add("r", "-1", []byte("negative"))
	f.Add("r", "01001", []byte("leading zero"))
	f.Add("r", "1e9", []byte("exponent"))
	f.Add("r", "", []byte("empty"))
	f.Add("r", "2000", []byte(strings.Repeat("x", 200)))
	f.Add("a/b", "2000", []byte("slash"))
	f.Add("%zz", "2000", []byte("bad escape"))
	f.Fuzz(func(t *testing.T, resource, token string, body []byte) {
		const limit = 128
		h := newHandler(t, NewMemory(), Options{MaxBody: limit})
		if put(h, "r", "1000", "kept").Code != http.StatusNoContent {
			t.Fatal("set-up write refused")
		}
		req, err := http.NewRequest(http.MethodPut, "/resources/"+url.PathEscape(resource), strings.NewReader(string(body)))
		if err != nil {
			return // not a request a client could send
		}
		req.Header[TokenHeader] = []string{token}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		parsed, perr := strconv.ParseUint(token, 10, 64)
		canonical := perr == nil && parsed > 0 && strconv.FormatUint(parsed, 10) == token
		valid := canonical && checkResource(resource) == nil
		switch rec.Code {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if rec.Code == http.StatusBadRequest && valid {
				t.Fatalf("valid request %q token %q refused: %s", resource, token, rec.Body)
			}
			if rec.Code == http.StatusRequestEntityTooLarge && len(body) <= limit {
				t.Fatalf("body of %d bytes refused as too large", len(body))
			}
			if after := get(h, "r"); after.Body.String() != "kept" || after.Header().Get(TokenHeader) != "1000" {
				t.Fatalf("a refused request changed the resource: %q token %s", after.Body, after.Header().Get(TokenHeader))
			}
		case http.StatusNoContent, http.StatusConflict:
			if !valid || len(body) > limit {
				t.Fatalf("invalid request %q token %q answered %d", resource, token, rec.Code)
			}
			wantApplied := resource != "r" || parsed > 1000
			if (rec.Code == http.StatusNoContent) != wantApplied {
				t.Fatalf("token %d on %q: got %d", parsed, resource, rec.Code)
			}
			after := get(h, url.PathEscape(resource))
			if wantApplied && (after.Body.String() != string(body) || after.Header().Get(TokenHeader) != token) {
				t.Fatalf("applied write not readable: %q token %s", after.Body, after.Header().Get(TokenHeader))
			}
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			// the path did not route to a single resource ("a/b", "." is cleaned and redirected).
			if !strings.Contains(resource, "/") && resource != "" && resource != "." && resource != ".." {
				t.Fatalf("resource %q did not route: %d", resource, rec.Code)
			}
		default:
			t.Fatalf("unexpected status %d: %s", rec.Code, rec.Body)
		}
	})
}
