package bag

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"rsx/display"
	"rsx/model"
)

// writeTagFiles writes bagit.txt, bag-info.txt and the tag manifests.
func writeTagFiles(dir string, res *Result, opt Options, now time.Time) error {
	if err := os.WriteFile(filepath.Join(dir, "bagit.txt"), []byte("BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"), 0o644); err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	info := []Field{
		{"Bagging-Date", now.UTC().Format("2006-01-02")},
		{"Payload-Oxum", strconv.FormatInt(res.Bytes, 10) + "." + strconv.Itoa(res.Files)},
		{"Bag-Size", display.Size(res.Bytes)},
	}
	if opt.Software != "" {
		info = append(info, Field{"Bag-Software-Agent", opt.Software})
	}
	for i := range res.Copies {
		info = append(info, res.Copies[i].info()...)
	}
	info = append(info, opt.Info...)
	var b strings.Builder
	for _, f := range info {
		label := cleanLabel(f.Label)
		if label == "" {
			continue
		}
		b.WriteString(label)
		b.WriteString(": ")
		b.WriteString(cleanValue(f.Value))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "bag-info.txt"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	tagFiles := []string{"bagit.txt", "bag-info.txt", URIsFile}
	for _, a := range res.Manifests {
		tagFiles = append(tagFiles, "manifest-"+a+".txt")
	}
	for _, a := range res.Manifests {
		var tb strings.Builder
		for _, name := range tagFiles {
			f, err := os.Open(filepath.Join(dir, name))
			if err != nil {
				return fmt.Errorf("bag: %w", err)
			}
			d, err := model.Digest(stateAlg(a), f)
			f.Close()
			if err != nil {
				return fmt.Errorf("bag: %w", err)
			}
			tb.WriteString(hex.EncodeToString(d) + " " + name + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, "tagmanifest-"+a+".txt"), []byte(tb.String()), 0o644); err != nil {
			return fmt.Errorf("bag: %w", err)
		}
	}
	return nil
}

func stateAlg(bagit string) string {
	for _, a := range bagitAlgs {
		if a.bagit == bagit {
			return a.state
		}
	}
	return bagit
}

// cleanLabel makes a label RFC 8493 accepts: no colon, no control,
// bidirectional or line-separator character, no surrounding white space.
func cleanLabel(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ':' || display.Unsafe(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return strings.TrimSpace(s)
}

// cleanValue keeps a value (text a Source controls among them: its links,
// its titles) on one line that every reader takes as one: a control
// character (CR, LF, NEL, …), a line or paragraph separator (bagit-python
// splits lines at U+2028 and U+2029) and a bidirectional control become
// spaces, bytes that are not UTF-8 U+FFFD.
func cleanValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if display.Unsafe(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return strings.TrimSpace(s)
}
