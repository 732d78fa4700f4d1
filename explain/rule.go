package explain

// The kinds of evidence Explain finds, in Violation.Rule.
const (
	RuleStaleAccepted  = "stale-accepted"  // a barred token accepted after the barring one returned: the article's step 4 without fencing
	RuleEqualAccepted  = "equal-accepted"  // the same token accepted twice under strict
	RuleWrongRejection = "wrong-rejection" // a rejection no earlier write justifies
	RuleReadOrigin     = "read-origin"     // a read of a value no applicable write wrote by then
	RuleStaleRead      = "stale-read"      // a read that missed a write completed before it began
	RuleNoOrder        = "no-order"        // none of the above: only the search found no legal order
)
