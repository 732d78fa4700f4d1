package verify

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/report"
)

// JUnit turns a battery into a JUnit suite: one test case per scenario,
// failed with the expected and observed behaviour and the root causes it
// may follow from, skipped with the reason; info scenarios (documented
// limits) pass.
func JUnit(rep Report) report.Suite {
	command := "fencecheck verify "
	if rep.Battery == "issuer" {
		command = "fencecheck verify-issuer "
	}
	suite := report.Suite{
		Name:       command + rep.Target,
		Properties: []report.Fact{{Name: "target", Value: rep.Target}, {Name: "policy", Value: rep.Policy}, {Name: "dir", Value: rep.Dir}},
	}
	for _, o := range rep.Outcomes {
		if o.Scenario == ReceiverLog && rep.ReceiverLog != nil {
			c := report.LogCase(rep.ReceiverLog) // with the quoted lines
			c.Name, c.Classname = o.Scenario, "verify"
			suite.Cases = append(suite.Cases, c)
			continue
		}
		c := report.Case{Name: o.Scenario, Classname: "verify"}
		switch o.Result {
		case Fail:
			name, follows := o.Scenario, ""
			if len(o.FollowsFrom) > 0 {
				name = fmt.Sprintf("%s (may follow from %s)", o.Scenario, strings.Join(o.FollowsFrom, ", "))
				follows = fmt.Sprintf("may follow from: %s (fix that first)\n", strings.Join(o.FollowsFrom, ", "))
			}
			c.Failure = &report.Failure{
				Message: fmt.Sprintf("%s: expected %s, observed %s", name, o.Expected, o.Observed),
				Type:    "scenario",
				Text:    fmt.Sprintf("hazard: %s\nexpected: %s\nobserved: %s\n%s", o.Hazard, o.Expected, o.Observed, follows),
			}
		case Skip:
			c.Skipped = o.Observed
		}
		suite.Cases = append(suite.Cases, c)
	}
	return suite
}
