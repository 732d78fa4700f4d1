package httptarget

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// The two worked examples of docs/http-protocol.md, as small servers with
// correct (strict) fencing. Their adapters are the files in docs/adapters.

type fencedMap struct {
	mu    sync.Mutex
	cells map[string]cellJSON
	// fail makes the next write answer with an unexpected result.
	fail bool
}

type cellJSON struct {
	Data  string `json:"data"`
	Fence uint64 `json:"fence"`
}

// apply is the atomic compare-and-set; ok false means stale.
func (m *fencedMap) apply(key string, fence uint64, data string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fence <= m.cells[key].Fence {
		return false
	}
	m.cells[key] = cellJSON{Data: data, Fence: fence}
	return true
}

func (m *fencedMap) get(key string) (cellJSON, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.cells[key]
	return c, ok
}

func (m *fencedMap) failNext() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.fail
	m.fail = false
	return f
}

// kvServer: PUT /kv/{key}?fence=N with the raw value (204, or 412 when
// stale); GET /kv/{key} answers {"value": ..., "fence": N} or 404.
func kvServer(m *fencedMap) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /kv/{key}", func(w http.ResponseWriter, r *http.Request) {
		fence, err := strconv.ParseUint(r.URL.Query().Get("fence"), 10, 64)
		if err != nil {
			http.Error(w, "bad fence", http.StatusBadRequest)
			return
		}
		if m.failNext() {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if !m.apply(r.PathValue("key"), fence, string(body)) {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /kv/{key}", func(w http.ResponseWriter, r *http.Request) {
		c, ok := m.get(r.PathValue("key"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"value": c.Data, "fence": c.Fence})
	})
	return mux
}

// rpcServer always answers 200 and reports errors in an "error" field.
// Fences travel as strings. POST /v1/objects/{name} {"fence": "N",
// "data": ...}; POST /v1/get {"object": name}.
func rpcServer(m *fencedMap) http.Handler {
	answer := func(w http.ResponseWriter, v map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/objects/{name}", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Fence uint64 `json:"fence,string"`
			Data  string `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			answer(w, map[string]any{"error": "bad_request"})
			return
		}
		switch {
		case m.failNext():
			answer(w, map[string]any{"error": "internal"})
		case !m.apply(r.PathValue("name"), req.Fence, req.Data):
			answer(w, map[string]any{"error": "stale_fence"})
		default:
			answer(w, map[string]any{"error": nil})
		}
	})
	mux.HandleFunc("POST /v1/get", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Object string `json:"object"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			answer(w, map[string]any{"error": "bad_request"})
			return
		}
		c, ok := m.get(req.Object)
		if !ok {
			answer(w, map[string]any{"error": "no_such_object"})
			return
		}
		answer(w, map[string]any{"error": nil, "object": map[string]any{"data": c.Data, "fence": strconv.FormatUint(c.Fence, 10)}})
	})
	return mux
}
