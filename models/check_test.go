package models

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckFallsBackToPorcupine(t *testing.T) {
	t.Parallel()
	unique := new(hb).w(1, 42, "new", 0, 10, acc).w(0, 41, "old", 20, 30, acc).ops
	res, note := Check(unique, Options{})
	assert.Equal(t, "fast", res.Checker)
	assert.Empty(t, note)
	assert.Equal(t, Violated, res.Verdict)

	repeated := new(hb).w(1, 42, "same", 0, 10, acc).w(1, 43, "same", 20, 30, acc).r(2, "same", 43, 40, 50).ops
	res, note = Check(repeated, Options{})
	assert.Equal(t, "porcupine", res.Checker)
	assert.Contains(t, note, "falling back to porcupine")
	assert.Equal(t, Held, res.Verdict)

	res, note = Check(unique, Options{Kind: KindRegister})
	assert.Equal(t, "porcupine", res.Checker)
	assert.NotEmpty(t, note)
	assert.Equal(t, Held, res.Verdict)
}
