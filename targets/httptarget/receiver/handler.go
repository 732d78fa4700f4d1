// Package receiver is fencecheck's reference HTTP receiver: the default
// protocol of docs/http-protocol.md, correct by default, with a memory or
// SQLite store and deliberate bug modes. `fencecheck receiver` serves it.
//
//	PUT /resources/{id}  Fencing-Token: N  body ──> Store.CompareAndPut ──> 204 | 409 (stale) | 400 | 413
//	GET /resources/{id}                         ──> Store.Get          ──> 200 value + Fencing-Token | 404
//	GET /metrics                                ──> what it answered, for Prometheus (metrics.go)
package receiver

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"time"
)

// TokenHeader carries fencing tokens on requests and answers.
const TokenHeader = "Fencing-Token"

// Options tune a Handler. DefaultOptions gives the defaults; a zero field
// means zero.
type Options struct {
	Bug Bug
	// MaxBody bounds a PUT body, in bytes; larger ones get 413. It must
	// be positive.
	MaxBody int64
	// Window is how long the check-then-set bug waits between its check
	// and its write; 0 is no wait.
	Window time.Duration
	// Log receives store errors; nil discards them.
	Log *log.Logger
	// MetricsResources is how many resources the highest-token gauge at
	// /metrics labels by name, the first to have a write accepted; the
	// others are only counted (metrics.go says why).
	MetricsResources int
	_                struct{} // keyed fields only: the struct may grow
}

// Handler serves the protocol over a store.
type Handler struct {
	store   Store
	write   writer
	maxBody int64
	log     *log.Logger
	mux     *http.ServeMux
	metrics *metrics
}

// DefaultOptions are the correct receiver with bodies up to 1 MiB, for
// the check-then-set bug a 5ms window (wide enough for a race in a short
// run), and 100 resources labelled at /metrics (a run's default is 4).
func DefaultOptions() Options {
	return Options{MaxBody: 1 << 20, Window: 5 * time.Millisecond, MetricsResources: 100}
}

// NewHandler returns the receiver's handler over store.
func NewHandler(store Store, o Options) (*Handler, error) {
	switch {
	case o.MaxBody < 1:
		return nil, fmt.Errorf("receiver options: MaxBody must be positive, not %d", o.MaxBody)
	case o.Window < 0:
		return nil, fmt.Errorf("receiver options: Window %v is negative", o.Window)
	case o.MetricsResources < 0:
		return nil, fmt.Errorf("receiver options: MetricsResources %d is negative", o.MetricsResources)
	}
	if o.Log == nil {
		o.Log = log.New(io.Discard, "", 0)
	}
	h := &Handler{store: store, write: o.Bug.writer(store, o.Window), maxBody: o.MaxBody, log: o.Log, mux: http.NewServeMux(),
		metrics: newMetrics(o.MetricsResources)}
	h.mux.HandleFunc("PUT /resources/{id}", h.put)
	h.mux.HandleFunc("GET /resources/{id}", h.get)
	h.mux.Handle("GET /metrics", h.metrics.handler())
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) put(w http.ResponseWriter, r *http.Request) {
	resource := r.PathValue("id")
	if err := checkResource(resource); err != nil {
		h.metrics.refuse(w, err.Error(), http.StatusBadRequest)
		return
	}
	token, err := parseToken(r.Header.Values(TokenHeader))
	if err != nil {
		h.metrics.refuse(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.ContentLength > h.maxBody {
		h.metrics.refuse(w, fmt.Sprintf("body of %d bytes is above the limit of %d", r.ContentLength, h.maxBody), http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		h.metrics.refuse(w, fmt.Sprintf("body above the limit of %d bytes", h.maxBody), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		h.metrics.refuse(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	applied, current, err := h.write(r.Context(), resource, Cell{Value: string(body), Token: token})
	if err != nil {
		h.log.Printf("PUT %s token %d: %v", resource, token, err)
		h.metrics.failed.Inc()
		http.Error(w, "store error", http.StatusInternalServerError)
		return
	}
	h.metrics.answered(resource, token, current, applied)
	w.Header().Set(TokenHeader, strconv.FormatUint(current, 10))
	if !applied {
		http.Error(w, fmt.Sprintf("stale token %d: %d already accepted", token, current), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	resource := r.PathValue("id")
	if err := checkResource(resource); err != nil {
		h.metrics.refuse(w, err.Error(), http.StatusBadRequest)
		return
	}
	c, found, err := h.store.Get(r.Context(), resource)
	if err != nil {
		h.log.Printf("GET %s: %v", resource, err)
		h.metrics.failed.Inc()
		http.Error(w, "store error", http.StatusInternalServerError)
		return
	}
	if !found {
		http.Error(w, "never written", http.StatusNotFound)
		return
	}
	w.Header().Set(TokenHeader, strconv.FormatUint(c.Token, 10))
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = io.WriteString(w, c.Value)
}
