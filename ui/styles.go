package ui

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
)

// Styles are every colour and border of the program, in one place. Build them
// with NewStyles once the terminal's background is known; views read them
// through Common.Styles and never make colours of their own.
type Styles struct {
	IsDark bool

	// Palette, for views that need a bare colour (spinners, progress bars).
	Accent, Muted, Subtle, Good, Warn, Bad, Info color.Color

	// Frame.
	App         lipgloss.Style // whole screen
	Title       lipgloss.Style // a page's title ("Resource List")
	Breadcrumb  lipgloss.Style // an ancestor in the breadcrumbs
	BreadSep    lipgloss.Style // the separator between breadcrumbs
	BreadActive lipgloss.Style // the current document in the breadcrumbs
	Tab         lipgloss.Style // an inactive page tab
	TabActive   lipgloss.Style // the active page tab

	// Tables.
	Header       lipgloss.Style // column titles
	HeaderSorted lipgloss.Style // the sorted column's title
	Row          lipgloss.Style
	RowAlt       lipgloss.Style // every other row (may equal Row)
	Selected     lipgloss.Style // the selected row while the table has focus
	SelectedBlur lipgloss.Style // the selected row while another pane has focus
	RowNumber    lipgloss.Style // the entry number column

	// Panes.
	Pane        lipgloss.Style // border of an unfocused pane
	PaneFocused lipgloss.Style // border of the focused pane
	PaneTitle   lipgloss.Style
	Label       lipgloss.Style // attribute names in a detail pane ("lastmod")
	Value       lipgloss.Style // attribute values
	URL         lipgloss.Style // a URL
	Rel         lipgloss.Style // a link relation ("up", "describedby")
	Explain     lipgloss.Style // an explanation in words (relation descriptions, hints)
	Code        lipgloss.Style // verbatim text: XML, headers

	// Status bar and messages.
	StatusBar   lipgloss.Style // the bar itself
	StatusKey   lipgloss.Style // a field name in the bar ("capability")
	StatusValue lipgloss.Style // a field value in the bar
	StatusBadge lipgloss.Style // a highlighted value (capability name)
	Flash       lipgloss.Style // a transient message ("copied …")
	Error       lipgloss.Style // errors: text
	ErrorBox    lipgloss.Style // errors: a box with the message and the retry hint
	Warning     lipgloss.Style
	OK          lipgloss.Style
	Dim         lipgloss.Style // secondary text
	Spinner     lipgloss.Style

	// Change values of a Change List.
	Created, Updated, Deleted lipgloss.Style

	// HTTP status classes.
	Status2xx, Status3xx, Status4xx, Status5xx lipgloss.Style

	// Input line (filter, open URL, jump).
	Prompt lipgloss.Style
	Input  lipgloss.Style

	// Help screen.
	HelpTitle lipgloss.Style
	HelpKey   lipgloss.Style
	HelpDesc  lipgloss.Style
	HelpGroup lipgloss.Style

	// Paint holds the escape sequences of the styles drawn on every row of a
	// large table, rendered once here: lipgloss.Style.Render costs
	// microseconds per call, too much for hundreds of cells per frame.
	Paint Paints
}

// Paints are pre-rendered styles: see Styles.Paint.
type Paints struct {
	URL, Dim, RowNumber             Paint
	Created, Updated, Deleted       Paint
	Border, BorderFocused, PaneHead Paint
}

// Paint is a style reduced to the escape sequences around its text. It
// suits styles without padding, borders or widths.
type Paint struct{ pre, post string }

// newPaint renders s once around a marker and keeps what surrounds it.
func newPaint(s lipgloss.Style) Paint {
	r := s.Render("X")
	i := strings.LastIndex(r, "X")
	if i < 0 {
		return Paint{}
	}
	return Paint{pre: r[:i], post: r[i+1:]}
}

// Apply paints text.
func (p Paint) Apply(text string) string {
	if p.pre == "" && p.post == "" {
		return text
	}
	return p.pre + text + p.post
}

// NewStyles returns the styles for a dark (isDark) or light terminal.
func NewStyles(isDark bool) *Styles {
	ld := lipgloss.LightDark(isDark)
	s := &Styles{IsDark: isDark}

	s.Accent = ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#A78BFA"))
	s.Muted = ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#8A8A8A"))
	s.Subtle = ld(lipgloss.Color("#D9D9D9"), lipgloss.Color("#3A3A3A"))
	s.Good = ld(lipgloss.Color("#1A7F37"), lipgloss.Color("#4ADE80"))
	s.Warn = ld(lipgloss.Color("#9A6700"), lipgloss.Color("#FACC15"))
	s.Bad = ld(lipgloss.Color("#CF222E"), lipgloss.Color("#F87171"))
	s.Info = ld(lipgloss.Color("#0969DA"), lipgloss.Color("#60A5FA"))
	fg := ld(lipgloss.Color("#1F1F1F"), lipgloss.Color("#E5E5E5"))
	selBg := ld(lipgloss.Color("#DDD6FE"), lipgloss.Color("#4C3A8F"))
	selBlurBg := ld(lipgloss.Color("#ECECEC"), lipgloss.Color("#333333"))
	barBg := ld(lipgloss.Color("#EEEEEE"), lipgloss.Color("#262626"))

	s.App = lipgloss.NewStyle()
	s.Title = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Breadcrumb = lipgloss.NewStyle().Foreground(s.Muted)
	s.BreadSep = lipgloss.NewStyle().Foreground(s.Subtle)
	s.BreadActive = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Tab = lipgloss.NewStyle().Foreground(s.Muted).Padding(0, 1)
	s.TabActive = lipgloss.NewStyle().Bold(true).Foreground(s.Accent).Padding(0, 1).Underline(true)

	s.Header = lipgloss.NewStyle().Bold(true).Foreground(s.Muted)
	s.HeaderSorted = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Row = lipgloss.NewStyle().Foreground(fg)
	s.RowAlt = s.Row
	s.Selected = lipgloss.NewStyle().Bold(true).Foreground(fg).Background(selBg)
	s.SelectedBlur = lipgloss.NewStyle().Foreground(fg).Background(selBlurBg)
	s.RowNumber = lipgloss.NewStyle().Foreground(s.Muted)

	s.Pane = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(s.Subtle)
	s.PaneFocused = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(s.Accent)
	s.PaneTitle = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Label = lipgloss.NewStyle().Foreground(s.Muted)
	s.Value = lipgloss.NewStyle().Foreground(fg)
	s.URL = lipgloss.NewStyle().Foreground(s.Info)
	s.Rel = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Explain = lipgloss.NewStyle().Italic(true).Foreground(s.Muted)
	s.Code = lipgloss.NewStyle().Foreground(fg)

	s.StatusBar = lipgloss.NewStyle().Foreground(fg).Background(barBg)
	s.StatusKey = lipgloss.NewStyle().Foreground(s.Muted).Background(barBg)
	s.StatusValue = lipgloss.NewStyle().Foreground(fg).Background(barBg)
	s.StatusBadge = lipgloss.NewStyle().Bold(true).
		Foreground(ld(lipgloss.Color("#FFFFFF"), lipgloss.Color("#1A1A1A"))).
		Background(s.Accent).Padding(0, 1)
	s.Flash = lipgloss.NewStyle().Foreground(s.Info)
	s.Error = lipgloss.NewStyle().Foreground(s.Bad)
	s.ErrorBox = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(s.Bad).Padding(0, 1)
	s.Warning = lipgloss.NewStyle().Foreground(s.Warn)
	s.OK = lipgloss.NewStyle().Foreground(s.Good)
	s.Dim = lipgloss.NewStyle().Foreground(s.Muted)
	s.Spinner = lipgloss.NewStyle().Foreground(s.Accent)

	s.Created = lipgloss.NewStyle().Foreground(s.Good)
	s.Updated = lipgloss.NewStyle().Foreground(s.Info)
	s.Deleted = lipgloss.NewStyle().Foreground(s.Bad)

	s.Status2xx = lipgloss.NewStyle().Foreground(s.Good)
	s.Status3xx = lipgloss.NewStyle().Foreground(s.Info)
	s.Status4xx = lipgloss.NewStyle().Foreground(s.Warn)
	s.Status5xx = lipgloss.NewStyle().Foreground(s.Bad)

	s.Prompt = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Input = lipgloss.NewStyle().Foreground(fg)

	s.HelpTitle = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.HelpKey = lipgloss.NewStyle().Bold(true).Foreground(fg)
	s.HelpDesc = lipgloss.NewStyle().Foreground(s.Muted)
	s.HelpGroup = lipgloss.NewStyle().Bold(true).Underline(true).Foreground(s.Accent)

	s.Paint = Paints{
		URL: newPaint(s.URL), Dim: newPaint(s.Dim), RowNumber: newPaint(s.RowNumber),
		Created: newPaint(s.Created), Updated: newPaint(s.Updated), Deleted: newPaint(s.Deleted),
		Border:        newPaint(lipgloss.NewStyle().Foreground(s.Subtle)),
		BorderFocused: newPaint(lipgloss.NewStyle().Foreground(s.Accent)),
		PaneHead:      newPaint(s.PaneTitle),
	}
	return s
}

// ChangePaint is ChangeStyle pre-rendered.
func (s *Styles) ChangePaint(change string) Paint {
	switch change {
	case "created":
		return s.Paint.Created
	case "updated":
		return s.Paint.Updated
	case "deleted":
		return s.Paint.Deleted
	}
	return Paint{}
}

// HTTPStatus returns the style for an HTTP status code.
func (s *Styles) HTTPStatus(code int) lipgloss.Style {
	switch {
	case code >= 500:
		return s.Status5xx
	case code >= 400:
		return s.Status4xx
	case code >= 300:
		return s.Status3xx
	case code >= 200:
		return s.Status2xx
	}
	return s.Dim
}

// ChangeStyle returns the style for a change value ("created", "updated", "deleted").
func (s *Styles) ChangeStyle(change string) lipgloss.Style {
	switch change {
	case "created":
		return s.Created
	case "updated":
		return s.Updated
	case "deleted":
		return s.Deleted
	}
	return s.Row
}
