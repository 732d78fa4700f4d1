package exampleapi

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// ErrorText is an API at one path that always answers 200 and reports
// failures as an error text holding both tokens:
//
//	POST /api {"op":"put","key":"report","token":42,"value":"new"} → {"ok":true}
//	POST /api {"op":"put","key":"report","token":41,"value":"old"} → {"ok":false,"error":"stale token 41 (current 42)"}
//	POST /api {"op":"get","key":"report"}                          → {"ok":true,"item":{"value":"new","token":42}}
//	POST /api {"op":"get","key":"missing"}                         → {"ok":false,"error":"no such key missing"}
//
// Anything it cannot parse gets {"ok":false,"error":"bad request: …"}.
func ErrorText(bug Bug) http.Handler {
	s := newStore(bug)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Op    string `json:"op"`
			Key   string `json:"key"`
			Token uint64 `json:"token"`
			Value string `json:"value"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Key == "" {
			answer(w, http.StatusOK, map[string]any{"ok": false, "error": fmt.Sprintf("bad request: %v", err)})
			return
		}
		switch req.Op {
		case "put":
			if req.Token == 0 {
				answer(w, http.StatusOK, map[string]any{"ok": false, "error": "bad request: token 0"})
			} else if current, ok := s.put(req.Key, req.Token, req.Value); !ok {
				answer(w, http.StatusOK, map[string]any{"ok": false, "error": fmt.Sprintf("stale token %d (current %d)", req.Token, current)})
			} else {
				answer(w, http.StatusOK, map[string]any{"ok": true})
			}
		case "get":
			if it, ok := s.get(req.Key); ok {
				answer(w, http.StatusOK, map[string]any{"ok": true, "item": map[string]any{"value": it.value, "token": it.token}})
			} else {
				answer(w, http.StatusOK, map[string]any{"ok": false, "error": "no such key " + req.Key})
			}
		default:
			answer(w, http.StatusOK, map[string]any{"ok": false, "error": fmt.Sprintf("bad request: op %q", req.Op)})
		}
	})
	return mux
}

// answer writes a JSON answer.
func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
