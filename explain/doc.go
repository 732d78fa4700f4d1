// Package explain words a violation: from the history and the operations
// a checker blames (check.Blame), one engine finds the evidence that was
// complete earliest and says, in the article's terms, what the resource
// should have done (Explain). It also shrinks a violating history to a
// minimal counterexample (Shrink), decides the verdict a release gate can
// rely on (Decide), and writes violations as timelines (WriteViolations).
package explain
