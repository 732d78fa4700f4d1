// Package model holds what a correct receiver is allowed to answer: the
// fenced register with its two policies, the plain register that fencing
// improves on, the fencing cap (what fencing makes irrelevant about a
// write of unknown outcome), and both registers as porcupine models. It
// judges nothing itself: package check does, against these models.
package model
