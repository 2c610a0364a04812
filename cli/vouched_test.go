package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"rsx/dest/engine"
	"rsx/model"
)

// A baseline's resources that changed during it, taken as the Change List
// records them, are named in the text and in the JSON with their entry.
func TestSyncSaysWhatTheChangeListVouchedFor(t *testing.T) {
	at := time.Date(2030, 1, 1, 10, 0, 1, 500000000, time.UTC)
	res := &engine.Result{Plan: &engine.Plan{Mode: engine.ModeBaseline}, Created: 2, Vouched: []engine.Vouched{
		{URI: "http://example.org/r/b", Path: "example.org/r/b", Change: model.ChangeUpdated, Datetime: at, Hash: "md5:abc", Length: 12, List: "http://example.org/cl.xml", Was: "the body does not match its claims"},
		{URI: "http://example.org/r/c", Change: model.ChangeDeleted, Datetime: at, Length: -1, List: "http://example.org/cl.xml", Was: "404 Not Found"},
	}}
	var b bytes.Buffer
	writeSyncResult(&b, newTextStyles(false), res)
	for _, want := range []string{"2 resources changed at the Source during the baseline, taken as its Change List records them",
		"http://example.org/r/b: updated 2030-01-01T10:00:01.5Z md5:abc length 12 in http://example.org/cl.xml",
		"http://example.org/r/c: deleted 2030-01-01T10:00:01.5Z in http://example.org/cl.xml"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
	js, err := json.Marshal(syncJSONOf(res.Plan, res, "/d", false, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Vouched []map[string]any `json:"vouched"`
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Vouched) != 2 || got.Vouched[0]["change"] != "updated" || got.Vouched[0]["length"] != 12.0 || got.Vouched[0]["hash"] != "md5:abc" ||
		got.Vouched[1]["length"] != nil || got.Vouched[1]["was"] != "404 Not Found" || got.Vouched[0]["datetime"] != "2030-01-01T10:00:01.5Z" {
		t.Errorf("vouched %v", got.Vouched)
	}
}
