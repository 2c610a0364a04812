package model

import "testing"

// ProblemsByRule groups errors and warnings by rule in first-seen order and
// leaves hints out.
func TestProblemsByRule(t *testing.T) {
	ps := []Problem{
		{Rule: "b", Severity: SeverityWarning, Message: "b1"},
		{Rule: "h", Severity: SeverityHint, Message: "h1"},
		{Rule: "a", Severity: SeverityError, Message: "a1"},
		{Rule: "b", Severity: SeverityWarning, Message: "b2"},
		{Rule: "b", Severity: SeverityWarning, Message: "b3"},
	}
	got := ProblemsByRule(ps)
	if len(got) != 2 || got[0].First.Message != "b1" || got[0].Count != 3 || got[1].First.Message != "a1" || got[1].Count != 1 {
		t.Errorf("ProblemsByRule = %+v", got)
	}
	if got := ProblemsByRule(nil); len(got) != 0 {
		t.Errorf("ProblemsByRule(nil) = %+v", got)
	}
}
