package ui

import (
	"testing"
)

// :q and :quit at the ":" prompt quit, as in vi; ":qx" is not a command
// (it is opened as a file name).
func TestPromptQuit(t *testing.T) {
	for _, typed := range []string{"q", "quit", " q "} {
		t.Run(typed, func(t *testing.T) {
			_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 100, 30)
			d.keys(":")
			d.typeText(typed)
			d.keys("enter")
			if !d.quit {
				t.Errorf(":%s did not quit; screen:\n%s", typed, d.screen())
			}
		})
	}
	_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 100, 30)
	d.keys(":")
	d.typeText("qx")
	d.keys("enter")
	if d.quit {
		t.Errorf(":qx quit")
	}
}
