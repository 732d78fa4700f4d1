package memory

// CheckThenSetRareOdds is how rarely memory://check-then-set-rare opens
// its race window: for one write in this many.
const CheckThenSetRareOdds = 100

// NewCheckThenSetRare returns the check-then-set receiver whose race
// window opens for one write in CheckThenSetRareOdds, picked by a hash of
// the write (oneIn): every other write is checked and applied in one
// step. It is the race of a receiver that is atomic on its common path
// and not on a rare one (a cache miss, a slow replica, a retry), which a
// single default run can miss, and a search over seeds or schedules
// should find.
func NewCheckThenSetRare() *CheckThenSet {
	return &CheckThenSet{opens: func(resource string, token uint64, value string) bool {
		return oneIn(CheckThenSetRareOdds, "check-then-set-rare", resource, token, value)
	}}
}

// NewCheckThenSetOneIn is the check-then-set receiver whose race window
// opens for one write in n, picked as NewCheckThenSetRare picks its own:
// for measuring how detection falls with how rarely a race is taken.
func NewCheckThenSetOneIn(n uint64) *CheckThenSet {
	return &CheckThenSet{opens: func(resource string, token uint64, value string) bool {
		return oneIn(n, "check-then-set-rare", resource, token, value)
	}}
}
