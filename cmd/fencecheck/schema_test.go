package main

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/report"
)

// TestCheckReportSchema: the result schema describes exactly what check
// --json prints.
func TestCheckReportSchema(t *testing.T) {
	t.Parallel()
	assert.NoError(t, schema.CheckGoType(schema.ResultFile, "/$defs/check", reflect.TypeFor[report.Checked]()))
}
