// Package report turns a checked history into what people look at: a
// self-contained report.html (verdict, coverage, counts, configuration,
// the minimal counterexample as a timeline table, plots as inline SVG),
// porcupine's interactive timeline.html, bounded for big histories, and
// minimal.html for the minimal counterexample; and into what CI systems
// read, JUnit XML.
//
//	harness.Run / fencecheck check ──Input──> Write(dir) ──> report.html, timeline.html, minimal.html, minimal.jsonl
//	                                          WriteJUnit ──> report.xml
//
// It knows nothing of the harness: callers describe a run in an Input.
package report
