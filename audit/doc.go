// Package audit is the article's checklist for adopting fencing as one
// procedure and one report: "locate the monotonic token issuer, verify
// that its sequence survives the failures in your design and identify
// the atomic resource-side enforcement point. Then repeat the
// paused-worker test against the real receiver."
//
// Run plays the steps in the article's order, each with its share of the
// budget, and hands their verdicts to the judge (judge.DecideAudit):
//
//	1 the issuer ─ which issuer gives the tokens, and what a token is
//	2 its sequence survives the failures ─ the issuer's battery (verify)
//	3 the enforcement point ─ the receiver's battery (verify)
//	4 the paused-worker test ─ a sweep of runs under pause and delay
//	5 the tempting fixes ─ the same workload without fencing, for context
//	6 what this does not cover ─ the article's limits, with what was seen
//
// It passes only when every step that judges held on evidence; what it
// cannot test (the user's own issuer, when fencecheck's gave the tokens;
// a step the budget cut) makes it inconclusive, saying so.
package audit
