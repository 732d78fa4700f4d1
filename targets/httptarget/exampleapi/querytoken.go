package exampleapi

import (
	"io"
	"net/http"
	"strconv"
)

// QueryToken is an API that takes the token as a query parameter and
// says why it refused a write in a header:
//
//	PUT /items/report?fence=42 (body: the value) → 204
//	PUT /items/report?fence=41                   → 409, X-Fence-Error: stale
//	GET /items/report                            → 200 {"data":{"item":{"value":"new","fence":42}}}
//	GET /items/missing                           → 404
//
// A fence that is not a decimal from 1 to 2^64-1 gets 400.
func QueryToken(bug Bug) http.Handler {
	s := newStore(bug)
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /items/{key}", func(w http.ResponseWriter, r *http.Request) {
		fence, err := strconv.ParseUint(r.URL.Query().Get("fence"), 10, 64)
		if err != nil || fence == 0 {
			http.Error(w, "bad fence", http.StatusBadRequest)
			return
		}
		value, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		if _, ok := s.put(r.PathValue("key"), fence, string(value)); !ok {
			w.Header().Set("X-Fence-Error", "stale")
			w.WriteHeader(http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /items/{key}", func(w http.ResponseWriter, r *http.Request) {
		it, ok := s.get(r.PathValue("key"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		answer(w, http.StatusOK, map[string]any{"data": map[string]any{"item": map[string]any{"value": it.value, "fence": it.token}}})
	})
	return mux
}
