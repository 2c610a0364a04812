package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/ui/common"
)

// Test helpers that the root's tests share with the pages' (rsx/ui/pages's
// harness_test.go, which runs a page as a whole program; the pages are
// tested there). Names start with iv as there.

// ivTestTime is the fixed clock of the inspector tests.
func ivTestTime() time.Time { return time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC) }

func ivTestCommon() *common.Common { return common.New(true, ivTestTime) }

// ivRunCmd runs a command and the batches it returns.
func ivRunCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, ivRunCmd(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}
