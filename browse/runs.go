package browse

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/verify"
)

//go:embed templates/runs.html.tmpl
var templates embed.FS

var runsTemplate = template.Must(template.ParseFS(templates, "templates/runs.html.tmpl"))

// maxRuns bounds the runs listed, newest first.
const maxRuns = 500

// maxResultBytes bounds the result.json read for the table.
const maxResultBytes = 32 << 20

// maxErrorBytes bounds the error.txt read for the table.
const maxErrorBytes = 64 << 10

// runRow is one row of the runs table.
type runRow struct {
	Name, Stamp string
	Started     time.Time
	Latest      bool
	// Target is the spec the run tested; empty when the run wrote no
	// result.json, which is where it is recorded.
	Target string
	// Status is a run's verdict, a battery's "passed" or "failed", "error"
	// for a run that ended in one, or "no result"; Class styles it and
	// Reason says it in words.
	Status, Class, Reason   string
	Operations, StaleWrites int
	HasCounts               bool
	// Page is the run's page (its report, table, summary or error), ""
	// when it has none; Links are the files it has.
	Page  string
	Links []rowLink
	// Check is the command that checks the history of a run that has no
	// result.
	Check string
}

// rowLink is a link to one file of a run.
type rowLink struct{ Label, Href string }

// rowFiles are the files a row links to, when the run has them.
var rowFiles = []struct{ name, label string }{
	{runstore.AuditPage, "audit"},
	{runstore.Report, "report"},
	{runstore.Table, "table"},
	{runstore.Timeline, "timeline"},
	{runstore.Minimal, "minimal"},
	{runstore.Summary, "summary"},
	{runstore.Error, "error"},
	{runstore.Result, "result.json"},
	{runstore.Audit, "audit.json"},
	{runstore.History, "history"},
	{runstore.MinimalHistory, "minimal history"},
}

// result is the part of result.json the table shows: a run's (verdict,
// counts, coverage, configuration) or a verify battery's (target,
// passed, scenarios).
type result struct {
	Format   int                      `json:"format"`
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

	Target    string       `json:"target"`
	Passed    *bool        `json:"passed"`
	Scenarios []verify.Row `json:"scenarios"`
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

// list reads the store: store/<name>/<stamp>/, newest first.
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

// row describes one run directory from the files it has.
func (s *Server) row(e runstore.Entry) runRow {
	r := runRow{Name: e.Name, Stamp: e.Stamp, Started: e.Started, Latest: e.Latest, Page: s.landing(e.Dir())}
	has := map[string]bool{}
	for _, f := range rowFiles {
		if _, err := s.regular(e.Dir() + "/" + f.name); err == nil {
			has[f.name] = true
			r.Links = append(r.Links, rowLink{f.label, "/runs/" + e.Dir() + "/" + f.name})
		}
	}
	r.Status, r.Class = "no result", "incomplete"
	switch {
	case has[runstore.Result]:
		s.describeResult(&r, e.Dir(), runstore.Result)
	case has[runstore.Audit]:
		s.describeResult(&r, e.Dir(), runstore.Audit)
	case has[runstore.History]:
		r.Reason = "no result.json: the run was killed, or is still running; its history can be checked"
		r.Check = "fencecheck check " + s.historyPath(e.Dir())
	default:
		r.Reason = "the run directory holds neither a result nor a history"
	}
	if has[runstore.Error] {
		r.Status, r.Class, r.Reason = "error", "error", s.firstLine(e.Dir()+"/"+runstore.Error)
		if has[runstore.History] {
			r.Check = "fencecheck check " + s.historyPath(e.Dir())
		}
	}
	return r
}

// describeResult fills the row from the run's result.json, or an
// audit's audit.json (name), which names its verdict, reason and target
// as a run's result does.
func (s *Server) describeResult(r *runRow, dir, name string) {
	data, err := s.readFile(dir+"/"+name, maxResultBytes)
	var res result
	if err == nil {
		err = json.Unmarshal(data, &res)
	}
	switch {
	case err != nil:
		r.Status, r.Class, r.Reason = "unreadable", "error", name+": "+err.Error()
	case res.Format > runstore.ResultFormat:
		// Every format up to this fencecheck's reads the same for the
		// fields shown here; a newer one may not.
		r.Status, r.Class = "unreadable", "error"
		r.Reason = fmt.Sprintf("%s is in format %d, newer than this fencecheck reads (up to %d): browse it with a newer fencecheck", runstore.Result, res.Format, runstore.ResultFormat)
	case res.Verdict == "" && res.Passed != nil: // a verify battery
		r.Target, r.Status, r.Class, r.Reason = res.Target, "failed", "violated", verify.Summary(res.Scenarios)
		if *res.Passed {
			r.Status, r.Class = "passed", "held"
		}
	case name == runstore.Audit:
		r.Target, r.Status, r.Class, r.Reason = res.Target, res.Verdict, res.Verdict, res.Reason
	default:
		r.Target, r.Status, r.Class, r.Reason = res.Config.Target, res.Verdict, res.Verdict, res.Reason
		r.Operations, r.StaleWrites, r.HasCounts = res.Counts.Operations, res.Coverage.StaleWrites, true
		if !res.Started.IsZero() {
			r.Started = res.Started
		}
	}
	if r.Status == "" {
		r.Status, r.Reason = "unknown", runstore.Result+" names no verdict"
	}
	if !pillClasses[r.Class] {
		r.Class = "incomplete"
	}
}

// pillClasses are the styles of a status the page has.
var pillClasses = map[string]bool{"held": true, "violated": true, "inconclusive": true, "interrupted": true, "incomplete": true, "error": true}

// firstLine is the first line of a small file of the store, for a title.
func (s *Server) firstLine(name string) string {
	data, err := s.readFile(name, maxErrorBytes)
	if err != nil {
		return name + ": " + err.Error()
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return strings.ToValidUTF8(string(line), "\uFFFD")
}
