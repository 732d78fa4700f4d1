// Package browse serves a read-only web view of a run store: a table of
// the runs, and each run's report, timelines and files.
//
//	GET /                               the runs, newest first
//	GET /latest/                        the run store/latest names: the last to finish with a result
//	GET /runs/{name}/{stamp}/           that run's page: its report, a battery's table, its summary or error
//	GET /runs/{name}/{stamp}/{file}     one of the files a run writes
//
// Every kind of run directory gets a row that says what it is: a run with
// its verdict, a verify battery with its scenarios, a run that ended in an
// error (error.txt), and one with a history but no result (killed, or
// still running), with the command that checks it. A row links only to
// the files the run has.
//
// It only reads, only the files a run writes, only regular files, and
// only inside the store: every path component is checked against a strict
// pattern, every file is opened through an os.Root, which refuses names
// and symbolic links that lead outside the store, and a name that is not
// a regular file (a link, a FIFO, a device) is not opened at all.
package browse

import (
	"fmt"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/runstore"
)

// securityPolicy allows what the pages need: inline styles, porcupine's
// inline script, and nothing from the network.
const securityPolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Server is the handler of a run store.
type Server struct {
	root *os.Root
	dir  string
	mux  *http.ServeMux
}

// New opens the run store at dir. Close releases it.
func New(dir string) (*Server, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open run store %s: %w", dir, err)
	}
	s := &Server{root: root, dir: dir, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /{$}", s.runs)
	s.mux.HandleFunc("GET /latest/{$}", s.latest)
	s.mux.HandleFunc("GET /runs/{name}/{stamp}/{$}", s.run)
	s.mux.HandleFunc("GET /runs/{name}/{stamp}/{file}", s.file)
	// Browsers ask for an icon; answering spares them a logged 404.
	s.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return s, nil
}

// Close releases the store.
func (s *Server) Close() error { return s.root.Close() }

// ServeHTTP serves GET and HEAD requests; the store is read-only.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", securityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// runDir returns the run directory a request names, or false after
// answering 404.
func (s *Server) runDir(w http.ResponseWriter, r *http.Request) (string, bool) {
	name, stamp := r.PathValue("name"), r.PathValue("stamp")
	if !runstore.ValidComponent(name) || !runstore.ValidComponent(stamp) {
		http.NotFound(w, r)
		return "", false
	}
	return name + "/" + stamp, true
}

// landings are the files a run's page opens, the first a run has: a
// run's report, a battery's table, the summary of a run written with
// --no-report, why the run has no result, or what result it has.
var landings = []string{runstore.Report, runstore.Table, runstore.Summary, runstore.Error, runstore.Result}

// landing returns the page of the run directory dir, or "" when it has
// none of the landings (a killed run).
func (s *Server) landing(dir string) string {
	for _, name := range landings {
		if _, err := s.regular(dir + "/" + name); err == nil {
			return "/runs/" + dir + "/" + name
		}
	}
	return ""
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	if dir, ok := s.runDir(w, r); ok {
		s.redirectToRun(w, r, dir)
	}
}

// redirectToRun redirects to the run's page, or explains why it has none.
func (s *Server) redirectToRun(w http.ResponseWriter, r *http.Request, dir string) {
	if page := s.landing(dir); page != "" {
		http.Redirect(w, r, page, http.StatusFound)
		return
	}
	msg := fmt.Sprintf("run %s has no result: it was killed or is still running", dir)
	if _, err := s.regular(dir + "/" + runstore.History); err == nil {
		msg += fmt.Sprintf(". Its history is /runs/%s/%s; fencecheck check %s checks it",
			dir, runstore.History, s.historyPath(dir))
	}
	http.Error(w, msg, http.StatusNotFound)
}

// historyPath is where fencecheck check finds the history of the run
// directory dir, as the store was given to serve.
func (s *Server) historyPath(dir string) string {
	return filepath.Join(s.dir, filepath.FromSlash(dir), runstore.History)
}

// latest follows store/latest, a run with a result (runstore.Publish).
func (s *Server) latest(w http.ResponseWriter, r *http.Request) {
	target, err := s.root.Readlink(runstore.Latest)
	parts := strings.Split(path.Clean(filepath.ToSlash(target)), "/")
	if err != nil || len(parts) != 2 || !runstore.ValidComponent(parts[0]) || !runstore.ValidComponent(parts[1]) {
		http.Error(w, "the store has no latest run", http.StatusNotFound)
		return
	}
	s.redirectToRun(w, r, parts[0]+"/"+parts[1])
}

// file serves a file a run writes, only if it is a regular file in the
// store.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.runDir(w, r)
	if !ok {
		return
	}
	name := r.PathValue("file")
	i := slices.IndexFunc(runstore.Files(), func(f runstore.File) bool { return f.Name == name })
	if i < 0 {
		http.NotFound(w, r)
		return
	}
	f, st, err := s.open(dir + "/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	kind := runstore.Files()[i]
	w.Header().Set("Content-Type", kind.ContentType)
	if kind.Download {
		run := strings.ReplaceAll(dir, "/", "-")
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": run + "-" + name}))
	}
	http.ServeContent(w, r, name, st.ModTime(), f)
}
