package verify

import (
	"time"

	"github.com/fencecheck/fencecheck/runstore"
)

// Store plays a battery in a run directory of its own, store/name/<time>,
// and keeps its report there with command, the line that repeats it: the
// table and result.json, and store/latest pointing at it. A battery that
// could not start leaves no directory; one that recorded something keeps
// it, with the error beside it (runstore.Fail).
func Store(store, name, command string, battery func(dir string) (Report, error)) (Report, error) {
	dir, err := runstore.Create(store, name, time.Now())
	if err != nil {
		return Report{}, err
	}
	rep, err := battery(dir)
	if err == nil {
		rep.Command = command
		err = WriteFiles(dir, rep)
	}
	if err != nil {
		return rep, runstore.Fail(store, dir, err)
	}
	return rep, runstore.Publish(store, dir)
}
