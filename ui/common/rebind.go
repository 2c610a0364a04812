package common

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
)

// ActionNames are the names of the KeyMap's actions as the configuration
// file's [keys] table spells them: the fields in snake_case (hist_back,
// open_url, sync_cmd), sorted.
func ActionNames() []string {
	t := reflect.TypeOf(KeyMap{})
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		names = append(names, snake(t.Field(i).Name))
	}
	slices.Sort(names)
	return names
}

// Rebind replaces the keys of the actions named (ActionNames) with the keys
// given; the help shows the new keys. An unknown action is an error naming
// it, and nothing is changed.
func (k *KeyMap) Rebind(keys map[string][]string) error {
	v := reflect.ValueOf(k).Elem()
	byName := map[string]int{}
	for i := range v.NumField() {
		byName[snake(v.Type().Field(i).Name)] = i
	}
	var unknown []string
	for name := range keys {
		if _, ok := byName[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("keys: unknown action %s (the actions: %s)", strings.Join(unknown, ", "), strings.Join(ActionNames(), ", "))
	}
	for name, ks := range keys {
		f := v.Field(byName[name]).Addr().Interface().(*key.Binding)
		f.SetKeys(ks...)
		f.SetHelp(strings.Join(ks, "/"), f.Help().Desc)
	}
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
