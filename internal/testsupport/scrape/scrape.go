// Package scrape reads a Prometheus /metrics answer into its metric
// families, with Prometheus's own parser (expfmt), and looks samples up
// by name and labels. The tests that compare the receiver's and a run's
// counters with a recorded history use it, as a dashboard would read the
// same answer; nothing in a run does.
package scrape

import (
	"context"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Get scrapes url, asking for the text format.
func Get(ctx context.Context, client *http.Client, url string) (Families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("scrape %s: %s: %s", url, resp.Status, body)
	}
	return Parse(resp.Body)
}

// Parse reads a text exposition.
func Parse(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	return Families(fams), nil
}

// Sum adds the values of the family's counter, gauge or untyped samples
// whose labels include every name and value of labels (given in pairs:
// "outcome", "accepted"); 0 when there are none.
func (f Families) Sum(name string, labels ...string) float64 {
	var sum float64
	for _, m := range f.samples(name, labels) {
		sum += value(m)
	}
	return sum
}

// Value is the value of the one sample of the family whose labels include
// labels, and false when there is no such sample or more than one.
func (f Families) Value(name string, labels ...string) (float64, bool) {
	ms := f.samples(name, labels)
	if len(ms) != 1 {
		return 0, false
	}
	return value(ms[0]), true
}

// Count is the number of the family's samples whose labels include labels.
func (f Families) Count(name string, labels ...string) int {
	return len(f.samples(name, labels))
}

func (f Families) samples(name string, labels []string) []*dto.Metric {
	fam, ok := f[name]
	if !ok {
		return nil
	}
	var out []*dto.Metric
	for _, m := range fam.GetMetric() {
		if hasLabels(m, labels) {
			out = append(out, m)
		}
	}
	return out
}

func hasLabels(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return m.GetUntyped().GetValue()
}
