package components

import (
	"fmt"

	"charm.land/bubbles/v2/progress"

	"rsx/display"
	"rsx/ui/common"
)

// ProgressBar draws done of total bytes in about w cells: bubbles' progress
// bar and the figures after it, or the bytes alone when the total is not
// known (total <= 0).
func ProgressBar(st *common.Styles, done, total int64, w int) string {
	if total <= 0 {
		return st.Dim.Render("downloading… " + display.Size(done))
	}
	text := fmt.Sprintf(" %3d%% %s of %s", min(done*100/total, 100), display.Size(done), display.Size(total))
	bar := progress.New(
		progress.WithColors(st.Accent),
		progress.WithFillCharacters('█', '░'),
		progress.WithoutPercentage(),
		progress.WithWidth(max(w-len(text)-14, 10)),
	)
	bar.EmptyColor = st.Subtle
	return bar.ViewAs(min(float64(done)/float64(total), 1)) + st.Value.Render(text)
}

// Bar draws bubbles' progress bar at frac (0 to 1) in w cells, without
// figures: the page writes its own (resources, bytes) beside it.
func Bar(st *common.Styles, frac float64, w int) string {
	bar := progress.New(
		progress.WithColors(st.Accent),
		progress.WithFillCharacters('█', '░'),
		progress.WithoutPercentage(),
		progress.WithWidth(max(w, 4)),
	)
	bar.EmptyColor = st.Subtle
	return bar.ViewAs(min(max(frac, 0), 1))
}
