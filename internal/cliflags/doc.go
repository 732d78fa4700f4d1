// Package cliflags is the plumbing of fencecheck's command line over
// pflag: single-valued flags that refuse a second value (Guard), and the
// command line that repeats what a command ran (Line). It knows flags,
// not what they mean: the command says which flags a line leaves out and
// which values it forces.
package cliflags
