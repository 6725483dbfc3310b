package anchors

import (
	"flag"
	"testing"
)

var table = flag.Bool("table", false, "print the calibration table (docs/cost-model.md) as markdown")

// TestAnchors_Calibration compiles every anchor and holds it to the
// issue's tolerances: each within its tolerance of the measurement, the
// matmul tutorial's steps each predicted faster than the one before, by a
// ratio within 25 % of the measured one. -table prints the table.
func TestAnchors_Calibration(t *testing.T) {
	rows, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Tolerance > 0 && r.Err() > r.Tolerance {
			t.Errorf("%s: predicted %s, measured %s (ratio %.3f): want within %.0f%%", r.Name, fmtNs(r.PredictedNs), fmtNs(r.MeasuredNs), r.Ratio(), 100*r.Tolerance)
		}
	}
	names, meas, pred := StepRatios(rows)
	if len(names) != len(Steps)-1 {
		t.Fatalf("%d step ratios, want %d", len(names), len(Steps)-1)
	}
	for k := range names {
		if pred[k] <= 1 || pred[k]/meas[k] < 0.75 || pred[k]/meas[k] > 1.25 {
			t.Errorf("%s: predicted speed-up x%.3f, measured x%.3f: want faster, within 25%% of the measured ratio", names[k], pred[k], meas[k])
		}
	}
	if *table {
		t.Log("\n" + Markdown(rows))
	}
}
