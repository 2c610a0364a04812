package pages

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"rsx/model"
	"rsx/notify"
	"rsx/ui/common"
)

// ivFeed is a notifications feed the test fills by hand (the root's is
// tested in rsx/ui's notifications_test.go, with the page in the explorer).
type ivFeed struct {
	target   string
	finding  bool
	err      error
	channels []NotifyChannel
	rows     []NoteRow
}

func (f *ivFeed) Target() string                                    { return f.target }
func (f *ivFeed) Finding() bool                                     { return f.finding }
func (f *ivFeed) Err() error                                        { return f.err }
func (f *ivFeed) Channels() []NotifyChannel                         { return f.channels }
func (f *ivFeed) Rows() []NoteRow                                   { return f.rows }
func (f *ivFeed) Received() int                                     { return len(f.rows) }
func (f *ivFeed) StatusSegment(*common.Styles) (full, short string) { return "", "" }

// TestNotificationsHint: while no notification has come the page says the
// hint it was given (the built-in demo's: how to move its clock), and not
// while the channels are still looked for, nor once one has come.
func TestNotificationsHint(t *testing.T) {
	const hint = "The built-in demo changes only when its clock moves; from another terminal:\ncurl -X POST 'http://127.0.0.1:1/demo/advance?steps=4'"
	const host = "http://example.org"
	c := ivTestCommon()
	f := &ivFeed{target: host + "/.well-known/resourcesync"}
	v := NewNotifications(c, ivNop{}, f, hint)
	v.SetSize(80, 24)
	screen := ansi.Strip(v.View())
	for _, want := range []string{"No notification yet", "changes only when its clock moves", "curl -X POST 'http://127.0.0.1:1/demo/advance?steps=4'"} {
		if !strings.Contains(screen, want) {
			t.Errorf("waiting, the page does not say %q:\n%s", want, screen)
		}
	}
	f.finding = true
	if screen := ansi.Strip(v.View()); strings.Contains(screen, "clock moves") {
		t.Errorf("the hint is shown while the channels are looked for:\n%s", screen)
	}
	f.finding = false
	change := notify.Channel{URL: "ws://example.org/channels/dataset1/change", Kind: notify.KindChange, CapabilityList: host + "/dataset1/capabilitylist.xml"}
	f.rows = append(f.rows, NoteRow{Event: &notify.Event{Type: notify.EventNotification, Channel: change, Time: ivTestTime(),
		Items: []notify.Item{{URL: host + "/res/001.html", Change: model.ChangeUpdated}}}})
	if screen := ansi.Strip(v.View()); strings.Contains(screen, "clock moves") {
		t.Errorf("the hint is shown under a notification:\n%s", screen)
	}
}
