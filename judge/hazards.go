package judge

import (
	"fmt"
	"slices"
)

// A Hazard is one way a receiver goes wrong that a pass must say it
// exercised, and how often the judged history exercised it.
type Hazard struct {
	// Name names the hazard for people: "stale writes".
	Name string
	// About says what the hazard is, for a report that explains it.
	About string
	// Count is how often it was exercised; Detail what became of those
	// (e.g. "9 rejected, 0 accepted, 0 unknown"), "" when there is
	// nothing to add.
	Count  int
	Detail string
	// Unmeasured: the history was judged in a way that does not measure
	// this hazard (Coverage.Unmeasured); Count is then 0 and means
	// nothing.
	Unmeasured bool
}

// Hazards lists what r's history exercised, hazard by hazard, in the
// order a pass states them: the protected case first, then the cases
// fencing allows or does not cover, then the faults that test
// durability and the issuer. o names the faults on the issuer
// (Options.IssuerFaults); issuer failovers are listed only for a history
// whose issuer had such faults or changed its leader, as the others had
// no issuer of theirs to fail.
func (r *Report) Hazards(o *Options) []Hazard {
	c := r.Coverage
	hs := []Hazard{
		{Name: "stale writes", Count: c.StaleWrites, Detail: fmt.Sprintf("%d rejected, %d accepted, %d unknown", c.StaleRejected, c.StaleAccepted, c.StaleUnknown),
			About: "writes sent after a newer token was accepted on their resource: the protected case, which must be rejected"},
		{Name: "old tokens first", Count: c.OldTokenFirst,
			About: "writes accepted although their lease had been reassigned, because the newer token had not reached the resource yet: fencing allows them"},
		{Name: "equal-token repeats", Count: c.EqualTokenRepeats, Detail: fmt.Sprintf("%d accepted", c.EqualTokenAccepted),
			About: "writes carrying a token an earlier write on the resource carried: a second write of the same owner, or a duplicate, which tokens cannot tell apart"},
		{Name: "concurrent writes", Count: c.ConcurrentWrites,
			About: "writes invoked while another write on the resource was in flight: what a receiver whose comparison and write are not one atomic step gets wrong"},
		{Name: "unknown outcomes", Count: c.UnknownOutcomes, About: "operations whose answer never came: a timeout, a lost connection"},
		{Name: "receiver crashes", Count: c.Crashes, Detail: crashDetail(c),
			About: "the receiver killed and started again, and stale writes it answered after a crash: whether it keeps the highest token across a crash"},
	}
	if len(o.IssuerFaults) > 0 || c.LeaderChanges > 0 {
		hs = append(hs, Hazard{Name: "issuer failovers", Count: c.LeaderChanges, Detail: fmt.Sprintf("%d lease grants after a server came back", c.GrantsAfterFailover),
			About: "the token issuer's leader changed under a fault: whether its sequence survives"})
	}
	for i := range hs {
		if slices.Contains(c.Unmeasured, unmeasuredField[hs[i].Name]) {
			hs[i].Count, hs[i].Detail, hs[i].Unmeasured = 0, "not measured when judged as it was written", true
		}
	}
	return hs
}

// crashDetail says how many stale writes crossed the crashes of c, ""
// when there were none to cross.
func crashDetail(c Coverage) string {
	if c.Crashes == 0 {
		return ""
	}
	return fmt.Sprintf("%d stale writes answered after one", c.StaleAfterCrash)
}

// unmeasuredField is the Coverage field behind a hazard that Follow
// leaves unmeasured.
var unmeasuredField = map[string]string{"old tokens first": "old_token_first", "equal-token repeats": "equal_token_repeats"}

// String words a hazard on one line: "9 stale writes (9 rejected, 0
// accepted, 0 unknown)".
func (h Hazard) String() string {
	if h.Unmeasured {
		return h.Name + ": " + h.Detail
	}
	if h.Detail == "" {
		return fmt.Sprintf("%d %s", h.Count, h.Name)
	}
	return fmt.Sprintf("%d %s (%s)", h.Count, h.Name, h.Detail)
}
