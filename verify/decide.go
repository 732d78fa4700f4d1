package verify

import (
	"strings"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/logscan"
)

// Decide is a battery's verdict, the gate that decided it and its
// reason, by the judge's rule for batteries (judge.DecideBattery): from
// its rows and what the log of the receiver it started showed (nil
// without one).
func Decide(outcomes []Row, log *logscan.Outcome) (judge.Verdict, judge.Gate, string) {
	b := judge.Battery{ReceiverLog: log}
	notJudged := "" // the first row not run's words
	for _, o := range outcomes {
		switch {
		case o.Result == Fail:
			b.Failed = append(b.Failed, judge.FailedScenario{Name: o.Scenario, FollowsFrom: o.FollowsFrom})
		case o.NotRun:
			// The first row not run says why; a row not judged (the
			// time ended during it) says so only when it is the last.
			if b.Stopped == "" && strings.HasPrefix(o.Observed, notRunPrefix) {
				b.Stopped = strings.TrimPrefix(o.Observed, notRunPrefix)
			}
			if notJudged == "" {
				notJudged = o.Observed
			}
			b.NotRun = append(b.NotRun, o.Scenario)
		}
	}
	if b.Stopped == "" {
		b.Stopped = notJudged
	}
	return judge.DecideBattery(b)
}

// judged is r with its verdict decided.
func (r Report) judged() Report {
	r.Passed = Passed(r.Outcomes)
	r.Verdict, r.Gate, r.Reason = Decide(r.Outcomes, r.ReceiverLog)
	return r
}
