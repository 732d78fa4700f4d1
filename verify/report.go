package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
)

// Report is what result.json holds.
type Report struct {
	// Format is the version of result.json's format; WriteJSON sets it
	// to runstore.ResultFormat.
	Format int `json:"format"`
	// Battery is "issuer" for the token issuer's battery (RunIssuer),
	// whose Target is the issuer; empty for the receiver's.
	Battery string `json:"battery,omitempty"`
	Target  string `json:"target"`
	// Leases names the token issuer of the scenarios' tokens; empty, the
	// scripted tokens.
	Leases string `json:"leases,omitempty"`
	Policy string `json:"policy,omitempty"`
	// MaxToken is the largest token the battery sent or would send: the
	// receiver's token domain (Options.MaxToken).
	MaxToken  uint64 `json:"max_token"`
	Exclusive bool   `json:"require_exclusive"`
	Passed    bool   `json:"passed"`
	Dir       string `json:"dir"`
	Outcomes  []Row  `json:"scenarios"`
	// ReceiverLog is what the log of a receiver the battery started
	// showed; its row is in Outcomes (ReceiverLogRow). Nil without one.
	ReceiverLog *logscan.Outcome `json:"receiver_log,omitempty"`
	// Command repeats the battery, as its caller would type it.
	Command string `json:"command,omitempty"`
	// Verdict is the battery's verdict (Decide), Gate what decided it
	// and Reason the same in words, as the summary line says it. They
	// are not in result.json, whose rows say the same.
	Verdict judge.Verdict `json:"-"`
	Gate    judge.Gate    `json:"-"`
	Reason  string        `json:"-"`
}

// WriteTable writes the outcomes as a Markdown table; a failure that may
// follow from a root cause says so in its result.
func WriteTable(w io.Writer, outcomes []Row) error {
	var b strings.Builder
	b.WriteString("| scenario | expected | observed | result |\n|---|---|---|---|\n")
	for _, o := range outcomes {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", o.Scenario, cell(o.Expected), cell(o.Observed), o.resultCell())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// resultCell is the row's result, with the root causes its failure may
// follow from: "FAIL (may follow from scope)".
func (o Row) resultCell() string {
	if len(o.FollowsFrom) == 0 {
		return string(o.Result)
	}
	return fmt.Sprintf("%s (may follow from %s)", o.Result, strings.Join(o.FollowsFrom, ", "))
}

// cell keeps a table cell on one line and readable.
func cell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
	if utf8.RuneCountInString(s) > 240 {
		s = string([]rune(s)[:240]) + "…"
	}
	return s
}

// Summary counts the results, e.g. "7 passed, 0 failed, 1 info, 0
// skipped", and when a row failed names the failures as the battery's
// verdict does (Decide), root causes first: "1 passed, 7 failed, 0 info,
// 1 skipped: scope failed, and equal-token-repeat, … may follow from it".
func Summary(outcomes []Row) string {
	n := map[Result]int{}
	for _, o := range outcomes {
		n[o.Result]++
	}
	counts := fmt.Sprintf("%d passed, %d failed, %d info, %d skipped", n[Pass], n[Fail], n[Info], n[Skip])
	if v, _, reason := Decide(outcomes, nil); v != judge.Held {
		return counts + ": " + reason
	}
	return counts
}

// WriteJSON writes the report as indented JSON, in the current format
// (runstore.ResultFormat).
func WriteJSON(w io.Writer, r Report) error {
	r.Format = runstore.ResultFormat
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people: what was tested, the table,
// the last lines of a receiver that went away during a scenario, the
// lines of the receiver's log that show a bug, the tally, where the
// report was written and the line that repeats it.
func WriteText(w io.Writer, r Report) error {
	if r.Battery == "issuer" {
		fmt.Fprintf(w, "verify-issuer %s\n\n", r.Target)
	} else {
		tokens := ""
		if r.Leases != "" {
			tokens = ", tokens from " + r.Leases
		}
		fmt.Fprintf(w, "verify %s (%s policy%s)\ntoken domain %s: no larger token is sent\n\n", r.Target, r.Policy, tokens, targets.DomainName(r.MaxToken))
	}
	if err := WriteTable(w, r.Outcomes); err != nil {
		return err
	}
	var quoted strings.Builder
	for _, o := range r.Outcomes {
		if len(o.lastLines) > 0 {
			fmt.Fprintf(&quoted, "\nthe receiver's output when it went away during %s ends:\n", o.Scenario)
			for _, l := range o.lastLines {
				fmt.Fprintf(&quoted, "  %s\n", l)
			}
		}
	}
	r.ReceiverLog.WriteQuoted(&quoted)
	_, err := fmt.Fprintf(w, "%s\n%s; wrote %s\nreproduce with: %s\n", quoted.String(), Summary(r.Outcomes), r.Dir, r.Command)
	return err
}
