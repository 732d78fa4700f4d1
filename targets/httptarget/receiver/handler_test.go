package receiver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// put sends a PUT straight to the handler; token "" sends no header.
func put(h http.Handler, resource, token, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPut, "/resources/"+resource, strings.NewReader(body))
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func get(h http.Handler, resource string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/resources/"+resource, nil))
	return rec
}

func TestProtocol(t *testing.T) {
	t.Parallel()
	h := newHandler(t, NewMemory(), DefaultOptions())
	assert.Equal(t, http.StatusNotFound, get(h, "report").Code)
	steps := []struct {
		token, body string
		code        int
		current     string
	}{
		{"42", "new-result", http.StatusNoContent, "42"},
		{"41", "old-result", http.StatusConflict, "42"},
		{"42", "again", http.StatusConflict, "42"},
		{"43", "newest", http.StatusNoContent, "43"},
	}
	for _, s := range steps {
		rec := put(h, "report", s.token, s.body)
		assert.Equal(t, s.code, rec.Code, "token %s", s.token)
		assert.Equal(t, s.current, rec.Header().Get(TokenHeader))
	}
	rec := get(h, "report")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "newest", rec.Body.String())
	assert.Equal(t, "43", rec.Header().Get(TokenHeader))
	assert.Equal(t, http.StatusNotFound, get(h, "other").Code, "resources are independent")
}

// TestBadRequestsChangeNothing: every malformed request is refused with 400
// or 413 and leaves the stored value and token as they were.
func TestBadRequestsChangeNothing(t *testing.T) {
	t.Parallel()
	const limit = 64
	cases := []struct {
		name     string
		resource string
		tokens   []string // header values; nil: no header
		body     string
		chunked  bool
		code     int
	}{
		{"no token", "r", nil, "v", false, 400},
		{"empty token", "r", []string{""}, "v", false, 400},
		{"letters", "r", []string{"abc"}, "v", false, 400},
		{"negative", "r", []string{"-5"}, "v", false, 400},
		{"plus sign", "r", []string{"+50"}, "v", false, 400},
		{"leading zero", "r", []string{"050"}, "v", false, 400},
		{"zero", "r", []string{"0"}, "v", false, 400},
		{"spaces", "r", []string{" 50"}, "v", false, 400},
		{"fraction", "r", []string{"50.0"}, "v", false, 400},
		{"exponent", "r", []string{"5e1"}, "v", false, 400},
		{"hex", "r", []string{"0x50"}, "v", false, 400},
		{"2^64 is out of range", "r", []string{"18446744073709551616"}, "v", false, 400},
		{"far out of range", "r", []string{strings.Repeat("9", 40)}, "v", false, 400},
		{"two tokens", "r", []string{"50", "60"}, "v", false, 400},
		{"resource too long", strings.Repeat("x", maxResource+1), []string{"50"}, "v", false, 400},
		{"control character in resource", "a%01b", []string{"50"}, "v", false, 400},
		{"body above the limit", "r", []string{"50"}, strings.Repeat("b", limit+1), false, 413},
		{"chunked body above the limit", "r", []string{"50"}, strings.Repeat("b", limit+1), true, 413},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHandler(t, NewMemory(), Options{MaxBody: limit})
			require.Equal(t, http.StatusNoContent, put(h, "r", "10", "kept").Code)
			req := httptest.NewRequest(http.MethodPut, "/resources/"+tc.resource, strings.NewReader(tc.body))
			if tc.chunked {
				req.ContentLength = -1
			}
			for _, v := range tc.tokens {
				req.Header.Add(TokenHeader, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tc.code, rec.Code, rec.Body.String())
			after := get(h, "r")
			assert.Equal(t, "kept", after.Body.String(), "the value changed")
			assert.Equal(t, "10", after.Header().Get(TokenHeader), "the token changed")
			if len(tc.resource) <= maxResource {
				assert.NotEqual(t, http.StatusOK, get(h, tc.resource+"x").Code)
			}
		})
	}
}

func TestLargestTokenAndLimitBody(t *testing.T) {
	t.Parallel()
	h := newHandler(t, NewMemory(), Options{MaxBody: 8})
	assert.Equal(t, http.StatusNoContent, put(h, "r", "18446744073709551615", "12345678").Code)
	assert.Equal(t, "18446744073709551615", get(h, "r").Header().Get(TokenHeader))
}

// TestBugModes: each mode answers the article's steps as its defect says.
func TestBugModes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		bug          Bug
		stale, equal int
	}{
		{NoBug, 409, 409},
		{Unfenced, 204, 204},
		{AcceptEqual, 409, 204},
		{CheckThenSet, 409, 409}, // without a race it behaves
		{ForgetOnRestart, 409, 409},
		{FloatTokens, 409, 409},
		{StringTokens, 409, 409},
	}
	for _, tc := range cases {
		t.Run(tc.bug.String(), func(t *testing.T) {
			t.Parallel()
			h := newHandler(t, NewMemory(), Options{Bug: tc.bug, MaxBody: DefaultOptions().MaxBody, Window: 1})
			require.Equal(t, 204, put(h, "r", "42", "new").Code)
			assert.Equal(t, tc.stale, put(h, "r", "41", "old").Code)
			assert.Equal(t, tc.equal, put(h, "r", "42", "again").Code)
		})
	}
	for _, name := range append([]string{"none", ""}, BugNames()...) {
		b, err := ParseBug(name)
		require.NoError(t, err)
		if name != "" {
			assert.Equal(t, name, b.String())
		}
	}
	_, err := ParseBug("sloppy")
	assert.ErrorContains(t, err, "check-then-set")
}

// TestTokenComparisonBugs: float-tokens and string-tokens order tokens
// as their defect says, and as integers where the defect does not show.
func TestTokenComparisonBugs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		bug         Bug
		first, next string
		code        int
	}{
		{NoBug, "9", "10", 204},
		{NoBug, "9007199254740992", "9007199254740993", 204},
		{FloatTokens, "9", "10", 204},
		{FloatTokens, "9007199254740991", "9007199254740992", 204},
		{FloatTokens, "9007199254740992", "9007199254740993", 409}, // 2^53+1 is 2^53
		{StringTokens, "1", "2", 204},
		{StringTokens, "9", "10", 409}, // "10" < "9"
		{StringTokens, "9007199254740992", "9007199254740993", 204},
	}
	for _, tc := range cases {
		t.Run(tc.bug.String()+" "+tc.first+"→"+tc.next, func(t *testing.T) {
			t.Parallel()
			h := newHandler(t, NewMemory(), Options{Bug: tc.bug, MaxBody: DefaultOptions().MaxBody})
			require.Equal(t, 204, put(h, "r", tc.first, "a").Code)
			assert.Equal(t, tc.code, put(h, "r", tc.next, "b").Code)
		})
	}
}

// TestSQLiteSurvivesRestart: a new handler over the same file keeps the
// highest token; forget-on-restart keeps the value but not the fence.
func TestSQLiteSurvivesRestart(t *testing.T) {
	t.Parallel()
	for _, bug := range []Bug{NoBug, ForgetOnRestart} {
		t.Run(bug.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "recv.db") // not validated: a SQLite store, not a history
			s, err := ParseStore("sqlite://" + path)
			require.NoError(t, err)
			h := newHandler(t, s, bugOptions(bug))
			require.Equal(t, 204, put(h, "r", "18446744073709551614", "before").Code)
			require.NoError(t, s.Close())

			s, err = ParseStore("sqlite:" + path)
			require.NoError(t, err)
			defer s.Close()
			h = newHandler(t, s, bugOptions(bug))
			rec := get(h, "r")
			assert.Equal(t, "before", rec.Body.String())
			assert.Equal(t, "18446744073709551614", rec.Header().Get(TokenHeader))
			want := http.StatusConflict
			if bug == ForgetOnRestart {
				want = http.StatusNoContent
			}
			assert.Equal(t, want, put(h, "r", "7", "stale").Code)
			assert.Equal(t, 204, put(h, "r", "18446744073709551615", "max").Code)
		})
	}
}

func TestSQLiteCompareAndPutOrdersTokensAsIntegers(t *testing.T) {
	t.Parallel()
	s, err := OpenSQLite(filepath.Join(t.TempDir(), "s.db")) // not validated: a SQLite store, not a history
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	for _, pair := range [][2]uint64{{9, 10}, {99, 100}, {999, 1000}, {1 << 53, 1<<53 + 1}, {1<<63 - 1, 1 << 63}} {
		res := "r" + filepath.Base(t.Name()) + string(rune('a'+pair[0]%26))
		ok, _, err := s.CompareAndPut(ctx, res, Cell{"lo", pair[0]}, Greater)
		require.NoError(t, err)
		require.True(t, ok)
		ok, cur, err := s.CompareAndPut(ctx, res, Cell{"hi", pair[1]}, Greater)
		require.NoError(t, err)
		assert.True(t, ok, "%d after %d", pair[1], pair[0])
		assert.Equal(t, pair[1], cur)
		ok, cur, err = s.CompareAndPut(ctx, res, Cell{"lo", pair[0]}, Greater)
		require.NoError(t, err)
		assert.False(t, ok, "%d after %d", pair[0], pair[1])
		assert.Equal(t, pair[1], cur)
	}
}

func TestCheckListen(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8787", false, true},
		{"[::1]:8787", false, true},
		{"localhost:0", false, true},
		{"0.0.0.0:8787", false, false},
		{":8787", false, false},
		{"192.0.2.1:8787", false, false},
		{"0.0.0.0:8787", true, true},
		{"nonsense", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			t.Parallel()
			err := CheckListen(tc.addr, tc.remote)
			assert.Equal(t, tc.ok, err == nil, "%v", err)
		})
	}
}

// newHandler is NewHandler for options a test knows to be valid.
func newHandler(t testing.TB, s Store, o Options) *Handler {
	t.Helper()
	h, err := NewHandler(s, o)
	require.NoError(t, err)
	return h
}

// bugOptions are the defaults with a bug.
func bugOptions(bug Bug) Options {
	o := DefaultOptions()
	o.Bug = bug
	return o
}

func TestHandlerOptionsOutOfRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no body", func(o *Options) { o.MaxBody = 0 }, "MaxBody must be positive, not 0"},
		{"negative window", func(o *Options) { o.Window = -time.Millisecond }, "Window -1ms is negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			tc.edit(&o)
			_, err := NewHandler(NewMemory(), o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
