package common

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Styles are every colour and border of the explorer, in one place. The root
// model builds them once per theme, with NewStyles, when the terminal tells
// its background colour; pages read them through Common.Styles when they
// draw and never make colours of their own.
type Styles struct {
	IsDark bool

	// Palette, for components that need a bare colour (progress bars).
	Accent, Muted, Subtle, Good, Warn, Bad, Info, Foreground color.Color

	// Frame.
	Title       lipgloss.Style // a page's title ("Resource List")
	Breadcrumb  lipgloss.Style // an ancestor in the breadcrumbs
	BreadSep    lipgloss.Style // the separator between breadcrumbs
	BreadActive lipgloss.Style // the current document in the breadcrumbs
	Section     lipgloss.Style // a section heading inside a page

	// Tables and lists.
	Header       lipgloss.Style // column titles
	Row          lipgloss.Style
	Selected     lipgloss.Style // the selected row while the list has focus
	SelectedBlur lipgloss.Style // the selected row while another pane has focus
	RowNumber    lipgloss.Style // the entry number column

	// Panes and values.
	PaneTitle lipgloss.Style
	Label     lipgloss.Style // attribute names ("lastmod")
	Value     lipgloss.Style // attribute values
	URL       lipgloss.Style
	Rel       lipgloss.Style // a link relation ("up", "describedby")
	Explain   lipgloss.Style // an explanation in words (relation descriptions)
	Code      lipgloss.Style // verbatim text: XML, headers, previews

	// Status bar and messages.
	StatusBar   lipgloss.Style // the bar itself
	StatusKey   lipgloss.Style // a field name in the bar
	StatusValue lipgloss.Style // a field value in the bar
	StatusBadge lipgloss.Style // the capability in the bar
	BarOK       lipgloss.Style // OK, Error and Warning on the bar's background
	BarError    lipgloss.Style
	BarWarning  lipgloss.Style
	Flash       lipgloss.Style // a transient message ("copied …")
	Error       lipgloss.Style
	ErrorTitle  lipgloss.Style // the heading of an error box
	ErrorBox    lipgloss.Style // a box around an error and what can be done
	Warning     lipgloss.Style
	OK          lipgloss.Style
	Dim         lipgloss.Style // secondary text
	Spinner     lipgloss.Style

	// Marked is an entry the user marked (■, in the accent colour), and
	// BarMarked the same on the bar's background: never the green ● of
	// the live notifications, so that the two cannot be taken for each other.
	Marked    lipgloss.Style
	BarMarked lipgloss.Style

	// Change values of a Change List.
	Created, Updated, Deleted lipgloss.Style

	// HTTP status classes, plain and on the status bar.
	Status2xx, Status3xx, Status4xx, Status5xx lipgloss.Style
	barStatus                                  [5]lipgloss.Style

	// Text inputs (filter, prompts, search).
	Prompt lipgloss.Style
	Input  lipgloss.Style

	// Help screen and footers.
	HelpTitle lipgloss.Style
	HelpKey   lipgloss.Style
	HelpDesc  lipgloss.Style
	HelpGroup lipgloss.Style
	Help      help.Styles // the footers, drawn by bubbles/help

	// Raw XML: syntax classes, search matches and the line gutter.
	XMLTag, XMLAttr, XMLValue, XMLComment, XMLPreproc, XMLEntity, XMLText lipgloss.Style
	Match, MatchCurrent                                                   lipgloss.Style
	Gutter, GutterTarget                                                  lipgloss.Style

	// Comparison marks: ✓ match, ✗ mismatch, – not declared, ? cannot compare.
	MarkOK, MarkBad, MarkNone, MarkUnknown lipgloss.Style

	// Paint holds the escape sequences of the styles drawn on every row of a
	// large table, rendered once here: lipgloss.Style.Render costs
	// microseconds per call, too much for hundreds of cells per frame.
	Paint Paints
}

// Paints are pre-rendered styles: see Styles.Paint.
type Paints struct {
	URL, Dim, RowNumber             Paint
	Created, Updated, Deleted       Paint
	MarkOK, MarkBad, MarkUnknown    Paint
	Border, BorderFocused, PaneHead Paint
	Error, Warning                  Paint // an entry's problem marks
	Picked                          Paint // an entry the user marked (■, as the table, status bar and detail pane show it)
}

// Paint is a style reduced to the escape sequences around its text. It
// suits styles without padding, borders or widths.
type Paint struct{ pre, post string }

// NewPaint renders s once around a marker and keeps what surrounds it.
func NewPaint(s lipgloss.Style) Paint {
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
	s.Foreground = ld(lipgloss.Color("#1F1F1F"), lipgloss.Color("#E5E5E5"))
	fg := s.Foreground
	selBg := ld(lipgloss.Color("#DDD6FE"), lipgloss.Color("#4C3A8F"))
	selBlurBg := ld(lipgloss.Color("#ECECEC"), lipgloss.Color("#333333"))
	barBg := ld(lipgloss.Color("#EEEEEE"), lipgloss.Color("#262626"))
	matchBg := ld(lipgloss.Color("#FDE68A"), lipgloss.Color("#6B5B10"))

	s.Title = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Breadcrumb = lipgloss.NewStyle().Foreground(s.Muted)
	s.BreadSep = lipgloss.NewStyle().Foreground(s.Subtle)
	s.BreadActive = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Section = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)

	s.Header = lipgloss.NewStyle().Bold(true).Foreground(s.Muted)
	s.Row = lipgloss.NewStyle().Foreground(fg)
	s.Selected = lipgloss.NewStyle().Bold(true).Foreground(fg).Background(selBg)
	s.SelectedBlur = lipgloss.NewStyle().Foreground(fg).Background(selBlurBg)
	s.RowNumber = lipgloss.NewStyle().Foreground(s.Muted)

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
	s.ErrorTitle = s.Error.Bold(true)
	s.ErrorBox = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(s.Bad).Padding(0, 1)
	s.Warning = lipgloss.NewStyle().Foreground(s.Warn)
	s.OK = lipgloss.NewStyle().Foreground(s.Good)
	s.Dim = lipgloss.NewStyle().Foreground(s.Muted)
	s.Spinner = lipgloss.NewStyle().Foreground(s.Accent)
	s.BarOK = s.OK.Background(barBg)
	s.BarError = s.Error.Background(barBg)
	s.BarWarning = s.Warning.Background(barBg)
	s.Marked = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.BarMarked = s.Marked.Background(barBg)

	s.Created = lipgloss.NewStyle().Foreground(s.Good)
	s.Updated = lipgloss.NewStyle().Foreground(s.Info)
	s.Deleted = lipgloss.NewStyle().Foreground(s.Bad)

	s.Status2xx = lipgloss.NewStyle().Foreground(s.Good)
	s.Status3xx = lipgloss.NewStyle().Foreground(s.Info)
	s.Status4xx = lipgloss.NewStyle().Foreground(s.Warn)
	s.Status5xx = lipgloss.NewStyle().Foreground(s.Bad)
	for i, st := range []lipgloss.Style{s.Dim, s.Status2xx, s.Status3xx, s.Status4xx, s.Status5xx} {
		s.barStatus[i] = st.Background(barBg)
	}

	s.Prompt = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Input = lipgloss.NewStyle().Foreground(fg)

	s.HelpTitle = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.HelpKey = lipgloss.NewStyle().Bold(true).Foreground(fg)
	s.HelpDesc = lipgloss.NewStyle().Foreground(s.Muted)
	s.HelpGroup = lipgloss.NewStyle().Bold(true).Underline(true).Foreground(s.Accent)
	s.Help = help.Styles{
		ShortKey: s.HelpKey, ShortDesc: s.HelpDesc, ShortSeparator: s.Dim, Ellipsis: s.Dim,
		FullKey: s.HelpKey, FullDesc: s.HelpDesc, FullSeparator: s.Dim,
	}

	s.XMLTag = lipgloss.NewStyle().Foreground(s.Accent)
	s.XMLAttr = lipgloss.NewStyle().Foreground(s.Info)
	s.XMLValue = lipgloss.NewStyle().Foreground(s.Good)
	s.XMLComment = lipgloss.NewStyle().Italic(true).Foreground(s.Muted)
	s.XMLPreproc = lipgloss.NewStyle().Foreground(s.Muted)
	s.XMLEntity = lipgloss.NewStyle().Foreground(s.Warn)
	s.XMLText = s.Code
	s.Match = lipgloss.NewStyle().Background(matchBg)
	s.MatchCurrent = lipgloss.NewStyle().Bold(true).Reverse(true).Foreground(s.Warn)
	s.Gutter = s.RowNumber
	s.GutterTarget = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)

	s.MarkOK = s.OK
	s.MarkBad = s.Error.Bold(true)
	s.MarkNone = s.Dim
	s.MarkUnknown = s.Warning

	s.Paint = Paints{
		URL: NewPaint(s.URL), Dim: NewPaint(s.Dim), RowNumber: NewPaint(s.RowNumber),
		Created: NewPaint(s.Created), Updated: NewPaint(s.Updated), Deleted: NewPaint(s.Deleted),
		MarkOK: NewPaint(s.MarkOK), MarkBad: NewPaint(s.MarkBad), MarkUnknown: NewPaint(s.MarkUnknown),
		Border:        NewPaint(lipgloss.NewStyle().Foreground(s.Subtle)),
		BorderFocused: NewPaint(lipgloss.NewStyle().Foreground(s.Accent)),
		PaneHead:      NewPaint(s.PaneTitle),
		Error:         NewPaint(s.Error),
		Warning:       NewPaint(s.Warning),
		Picked:        NewPaint(s.Marked),
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

// ChangeStyle returns the style of a change value ("created", "updated", "deleted").
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

// HTTPStatus returns the style of an HTTP status code.
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

// BarHTTPStatus is HTTPStatus on the status bar's background.
func (s *Styles) BarHTTPStatus(code int) lipgloss.Style {
	switch {
	case code >= 500:
		return s.barStatus[4]
	case code >= 400:
		return s.barStatus[3]
	case code >= 300:
		return s.barStatus[2]
	case code >= 200:
		return s.barStatus[1]
	}
	return s.barStatus[0]
}
