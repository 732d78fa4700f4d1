package exampleapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// StringVersion is a document API whose version field is a JSON string
// of a decimal, as APIs do that keep 64-bit integers away from
// JavaScript's float64 numbers:
//
//	PUT /docs/report {"version":"42","content":"new"} → 200 {"version":"42"}
//	PUT /docs/report {"version":"41","content":"old"} → 409 {"error":"version 41 is not newer than 42"}
//	GET /docs/report                                  → 200 {"version":"42","content":"new"}
//	GET /docs/missing                                 → 404 {"error":"not found"}
//
// A version that is not a decimal from 1 to 2^64-1 gets 400.
func StringVersion(bug Bug) http.Handler {
	s := newStore(bug)
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /docs/{key}", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Version string `json:"version"`
			Content string `json:"content"`
		}
		err := json.NewDecoder(r.Body).Decode(&req)
		version, perr := strconv.ParseUint(req.Version, 10, 64)
		if err != nil || perr != nil || version == 0 {
			answer(w, http.StatusBadRequest, map[string]any{"error": "bad request"})
			return
		}
		if current, ok := s.put(r.PathValue("key"), version, req.Content); !ok {
			answer(w, http.StatusConflict, map[string]any{"error": fmt.Sprintf("version %d is not newer than %d", version, current)})
			return
		}
		answer(w, http.StatusOK, map[string]any{"version": req.Version})
	})
	mux.HandleFunc("GET /docs/{key}", func(w http.ResponseWriter, r *http.Request) {
		it, ok := s.get(r.PathValue("key"))
		if !ok {
			answer(w, http.StatusNotFound, map[string]any{"error": "not found"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"version": strconv.FormatUint(it.token, 10), "content": it.value})
	})
	return mux
}
