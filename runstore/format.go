package runstore

// ResultFormat is the version of what a result.json holds, written into
// it as "format" by every writer of one (a run, a verify battery) and
// printed by check --json too: a tool that reads these files compares it
// with the version it knows and refuses a newer one rather than misread
// it. It goes up when a field changes its meaning or goes away; a field
// added does not change it, as readers skip fields they do not know.
// docs/schema/result.schema.json describes this version, and
// docs/running.md says what a change means.
const ResultFormat = 2
