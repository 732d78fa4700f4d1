package browse

import (
	"cmp"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"time"

	"github.com/fencecheck/fencecheck/runstore"
)

//go:embed templates/runs.html.tmpl
var templates embed.FS

var runsTemplate = template.Must(template.ParseFS(templates, "templates/runs.html.tmpl"))

// maxRuns bounds the runs listed, newest first.
const maxRuns = 500

// maxResultBytes bounds the result.json read for the table.
const maxResultBytes = 32 << 20

// runRow is one row of the runs table.
type runRow struct {
	Name, Stamp, Target, Verdict, Reason string
	Started                              time.Time
	Operations, StaleWrites              int
	HasResult, Latest                    bool
}

// result is the part of result.json the table shows.
type result struct {
	Verdict  string                   `json:"verdict"`
	Reason   string                   `json:"reason"`
	Started  time.Time                `json:"started"`
	Counts   struct{ Operations int } `json:"counts"`
	Coverage struct {
		StaleWrites int `json:"stale_writes"`
	} `json:"coverage"`
	Config struct {
		Target string `json:"target"`
	} `json:"config"`
}

func (s *Server) runs(w http.ResponseWriter, _ *http.Request) {
	rows := s.list()
	page := struct {
		Store string
		Runs  []runRow
		More  int
	}{Store: s.dir, Runs: rows}
	if len(rows) > maxRuns {
		page.Runs, page.More = rows[:maxRuns], len(rows)-maxRuns
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := runsTemplate.Execute(w, page); err != nil {
		http.Error(w, "render runs: "+err.Error(), http.StatusInternalServerError)
	}
}

// list reads the store: store/<name>/<stamp>/result.json, newest first.
func (s *Server) list() []runRow {
	var rows []runRow
	for _, e := range runstore.List(s.root) {
		rows = append(rows, s.row(e))
	}
	slices.SortFunc(rows, func(a, b runRow) int {
		return cmp.Or(b.Started.Compare(a.Started), cmp.Compare(b.Stamp, a.Stamp), cmp.Compare(a.Name, b.Name))
	})
	return rows
}

func (s *Server) row(e runstore.Entry) runRow {
	r := runRow{Name: e.Name, Stamp: e.Stamp, Started: e.Started, Latest: e.Latest, Verdict: "incomplete",
		Reason: "no result.json: the run was killed or is still running; its history can still be checked"}
	data, err := s.readFile(e.Dir()+"/"+runstore.Result, maxResultBytes)
	var res result
	if err != nil || json.Unmarshal(data, &res) != nil {
		return r
	}
	r.HasResult, r.Verdict, r.Reason, r.Target = true, res.Verdict, res.Reason, res.Config.Target
	r.Operations, r.StaleWrites = res.Counts.Operations, res.Coverage.StaleWrites
	if !res.Started.IsZero() {
		r.Started = res.Started
	}
	return r
}
