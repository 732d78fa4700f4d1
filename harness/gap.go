package harness

import "slices"

// A Gap is a hazard a run did not exercise, and what would exercise it.
type Gap struct {
	// Hazard says what was not exercised, in the harness's words.
	Hazard string
	// Add are the settings that, together, would exercise it; none when
	// no setting would (the cause is in Hazard).
	Add []Setting
	// Protected marks the gap of the protected case itself: no stale
	// write was submitted.
	Protected bool
}

// Text words the gap, its settings in t's terms. Advice is given only
// when every setting it needs applies to the run: a setting t words as
// "" has no place there (an --exec for a SQL target), and the gap is
// then stated without advice.
func (g Gap) Text(t Terms) string {
	if len(g.Add) == 0 {
		return g.Hazard
	}
	for _, s := range g.Add {
		if t.Setting(s) == "" {
			return g.Hazard
		}
	}
	return g.Hazard + " (" + add(t, g.Add) + ")"
}

// NotCovered lists what the run did not exercise, so that a pass says what
// it excluded.
func (res *Result) NotCovered() []Gap {
	var gaps []Gap
	cov, o := res.Coverage, res.Config.judged
	if cov.StaleWrites == 0 {
		gaps = append(gaps, Gap{Hazard: "NO STALE WRITE WAS SUBMITTED: the protected case was never exercised: " + res.StaleCause(&o), Protected: true})
	}
	if cov.EqualTokenRepeats == 0 {
		gaps = append(gaps, Gap{Hazard: "no equal-token repeat was sent"})
	}
	if cov.OldTokenFirst == 0 && !res.Config.RequireExclusive {
		gaps = append(gaps, Gap{Hazard: "no old token reached the resource before a newer one", Add: res.addFaults("delay")})
	}
	if cov.UnknownOutcomes == 0 {
		gaps = append(gaps, Gap{Hazard: "no operation had an unknown outcome"})
	}
	switch {
	case res.CrashUntested(&o) != "":
		gaps = append(gaps, Gap{Hazard: res.CrashUntested(&o)})
	case cov.Crashes == 0:
		add := res.addFaults("kill")
		if res.ReceiverLog == nil && add != nil {
			// Not a receiver fencecheck started: kill needs one.
			add = append([]Setting{processTarget}, add...)
		}
		gaps = append(gaps, Gap{Hazard: "durability across receiver crashes is not tested by this run", Add: add})
	}
	switch {
	case res.FailoverUntested(&o) != "":
		gaps = append(gaps, Gap{Hazard: res.FailoverUntested(&o)})
	case len(res.Config.issuerFaults) == 0 && res.Config.issuerServers:
		gaps = append(gaps, Gap{Hazard: "the token sequence across a failover of the issuer is not tested by this run", Add: []Setting{addFault("issuer-kill")}})
	}
	if res.Config.issuerReplica && !slices.Contains(res.Config.issuerFaults, "issuer-failover") {
		gaps = append(gaps, Gap{Hazard: "the token sequence across a failover to the issuer's replica is not tested by this run", Add: []Setting{addFault("issuer-failover")}})
	}
	if res.Config.restorable && !slices.ContainsFunc(res.Config.issuerFaults, isRestoreFault) {
		gaps = append(gaps, Gap{Hazard: "the token sequence across a restore of the issuer from a snapshot is not tested by this run", Add: []Setting{addFault("issuer-restore")}})
	}
	gaps = append(gaps, Gap{Hazard: "duplicate suppression and side effects outside the resource are not what fencing covers"})
	return gaps
}

// notCovered words the gaps in the run's terms.
func (res *Result) notCovered() []string {
	gaps := res.NotCovered()
	out := make([]string, len(gaps))
	for i, g := range gaps {
		out[i] = g.Text(res.terms())
	}
	return out
}

// addFaults are the settings that add the faults named, those the run
// has already left out: a fault that is on and did not act needs no
// advice to add it (the hazard says what did not happen).
func (res *Result) addFaults(names ...string) []Setting {
	var out []Setting
	for _, n := range names {
		if slices.Contains(res.Config.Faults, n) {
			return nil
		}
		out = append(out, addFault(n))
	}
	return out
}

// isRestoreFault says whether the fault restores the issuer from a
// snapshot (issuer-restore, issuer-restore-bumped).
func isRestoreFault(name string) bool {
	return name == "issuer-restore" || name == "issuer-restore-bumped"
}
