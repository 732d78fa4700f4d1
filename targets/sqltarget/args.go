package sqltarget

import "github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"

// args are the values a statement's named placeholders stand for.
type args struct {
	resource string
	token    int64
	value    string
}

// bind returns the driver arguments for q, in its placeholder order.
func (a args) bind(q placeholders.Query) []any {
	out := make([]any, len(q.Params))
	for i, p := range q.Params {
		switch p {
		case placeholders.Resource:
			out[i] = a.resource
		case placeholders.Token:
			out[i] = a.token
		case placeholders.Value:
			out[i] = a.value
		}
	}
	return out
}
