package common

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"

	"rsx/internal/suggest"
)

// fixedActions are the fields of the KeyMap that name no key, and so are
// not actions of the configuration file: the commands typed at the ":"
// prompt (the prompt reads the words, never a key press) and the help's
// summary of the prompt's keys (prompt_prev, prompt_next and complete,
// which are actions). Each says why it cannot be rebound.
var fixedActions = map[string]string{
	"sync_cmd":    ":sync is a command typed at the : prompt, not a key",
	"audit_cmd":   ":audit is a command typed at the : prompt, not a key",
	"dest_cmd":    ":dest is a command typed at the : prompt, not a key",
	"fleet_cmd":   ":fleet is a command typed at the : prompt, not a key",
	"quit_cmd":    ":q is a command typed at the : prompt, not a key (quit is the key)",
	"prompt_keys": "the help's line for the prompt's keys, not a key (prompt_prev, prompt_next and complete are)",
}

// ActionNames are the names of the KeyMap's actions as the configuration
// file's [keys] table spells them: the fields in snake_case (hist_back,
// open_url, prompt_prev), sorted; the fields that name no key (the prompt's
// commands, :sync) are not among them.
func ActionNames() []string {
	t := reflect.TypeOf(KeyMap{})
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if n := snake(t.Field(i).Name); fixedActions[n] == "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// ByAction are the bindings of the actions (ActionNames) by name.
func (k KeyMap) ByAction() map[string]key.Binding {
	v := reflect.ValueOf(k)
	out := map[string]key.Binding{}
	for i := range v.NumField() {
		if n := snake(v.Type().Field(i).Name); fixedActions[n] == "" {
			out[n] = v.Field(i).Interface().(key.Binding)
		}
	}
	return out
}

// KeyProblems are what is wrong with keys (the configuration file's [keys]
// table), all of them, sorted by action: an action that is none (with the
// one most likely meant), one that cannot be rebound, a key no key press is
// ever reported as (with the name meant). Each starts with keys.ACTION.
func KeyProblems(keys map[string][]string) []string {
	actions := ActionNames()
	names := KeyNames()
	var probs []string
	noted := false
	for _, action := range slices.Sorted(maps.Keys(keys)) {
		where := "keys." + action
		if why := fixedActions[action]; why != "" {
			probs = append(probs, fmt.Sprintf("%s: %s: it cannot be rebound", where, why))
			continue
		}
		if !slices.Contains(actions, action) {
			msg := where + ": no such action"
			if s := suggest.Nearest(action, actions); s != "" {
				msg += " (did you mean " + s + "?)"
			} else {
				msg += " (docs/config.md lists the actions)"
			}
			probs = append(probs, msg)
			continue
		}
		for _, k := range keys[action] {
			ok, meant := CheckKeyName(k, names)
			if ok {
				continue
			}
			var why []string
			if meant != "" {
				why = append(why, fmt.Sprintf("did you mean %q?", meant))
			}
			if !noted {
				why, noted = append(why, keyNamesNote), true
			}
			msg := fmt.Sprintf("%s: %q is no key name", where, k)
			if len(why) > 0 {
				msg += " (" + strings.Join(why, " ") + ")"
			}
			probs = append(probs, msg)
		}
	}
	return probs
}

// Rebind replaces the keys of the actions named (ActionNames) with the keys
// given; the help shows the new keys. Any problem (KeyProblems) is an error
// naming every one, and nothing is changed.
func (k *KeyMap) Rebind(keys map[string][]string) error {
	if probs := KeyProblems(keys); len(probs) > 0 {
		return errors.New(strings.Join(probs, "; "))
	}
	v := reflect.ValueOf(k).Elem()
	byName := map[string]int{}
	for i := range v.NumField() {
		byName[snake(v.Type().Field(i).Name)] = i
	}
	for name, ks := range keys {
		f := v.Field(byName[name]).Addr().Interface().(*key.Binding)
		f.SetKeys(ks...)
		f.SetHelp(strings.Join(ks, "/"), f.Help().Desc)
	}
	// The help's line for the prompt says the prompt's keys as they are.
	k.PromptKeys.SetHelp(fmt.Sprintf(": %s/%s %s", k.PromptPrev.Help().Key, k.PromptNext.Help().Key, k.Complete.Help().Key), k.PromptKeys.Help().Desc)
	return nil
}

// snake writes a Go field name in snake_case: HistBack hist_back, OpenURL
// open_url, HTTP http.
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
