package audit

import (
	"embed"
	"html/template"
	"io"
	"strings"
	"time"
)

//go:embed templates/audit.html.tmpl
var templates embed.FS

var pageTemplate = template.Must(template.New("audit.html.tmpl").Funcs(template.FuncMap{
	"upper": strings.ToUpper,
	"round": func(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) },
	"class": resultClass,
}).ParseFS(templates, "templates/audit.html.tmpl"))

// WritePage writes audit.html: one page a reviewer reads top to bottom,
// the verdict first, then each step with its evidence and links to the
// runs it stored (relative to the audit's directory, so the page works
// where the directory is, and in fencecheck serve).
func (r *Report) WritePage(w io.Writer) error { return pageTemplate.Execute(w, r) }

// resultClass is the page's style of a step's result.
func resultClass(result string) string {
	switch result {
	case "held":
		return "held"
	case "violated":
		return "violated"
	case "info":
		return "info"
	}
	return "inconclusive"
}
