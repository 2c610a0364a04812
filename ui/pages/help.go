package pages

import (
	"rsx/ui/components"
	"slices"

	"charm.land/bubbles/v2/key"

	"rsx/ui/common"
)

// withMoves is a page's bindings for its help (nav.KeyHelper): bs without
// its up and down keys, then every movement key, enabled when there is
// somewhere to move (on).
func withMoves(k common.KeyMap, bs []key.Binding, on bool) []key.Binding {
	out := make([]key.Binding, 0, len(bs)+8)
	for _, b := range bs {
		if !slices.Equal(b.Keys(), k.Up.Keys()) && !slices.Equal(b.Keys(), k.Down.Keys()) {
			out = append(out, b)
		}
	}
	return append(out, k.MoveKeys(on)...)
}

// cellsOf measures as the terminal counts (common.Common.WidthMethod): every
// page pads, cuts and wraps with it, so that a line holding an emoji
// sequence is as wide on the screen as it was drawn.
func cellsOf(c *common.Common) components.Cells { return components.CellsOf(c.WidthMethod) }
