package present_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/present"
)

func TestForPicksTheLanguage(t *testing.T) {
	tests := []struct {
		lang string
		env  []string
		want *present.Catalog
	}{
		{"", nil, present.English},
		{"", []string{"", "", "zh_CN.UTF-8"}, present.Chinese},
		{"", []string{"en_US.UTF-8", "", "zh_CN.UTF-8"}, present.English}, // LC_ALL wins
		{"zh", []string{"en_US.UTF-8"}, present.Chinese},                  // the flag wins
		{"en", []string{"zh_TW.UTF-8"}, present.English},
		{"", []string{"C"}, present.English},
	}
	for _, tt := range tests {
		if got := present.For(tt.lang, tt.env...); got != tt.want {
			t.Errorf("For(%q, %q) = %s, want %s", tt.lang, tt.env, got.Lang, tt.want.Lang)
		}
	}
}

// TestChineseHasEveryWord protects the Chinese screens from English gaps:
// every word the English catalog has, the Chinese one has too, with as
// many verbs, and every list as many lines.
func TestChineseHasEveryWord(t *testing.T) {
	var walk func(path string, en, zh reflect.Value)
	walk = func(path string, en, zh reflect.Value) {
		switch en.Kind() {
		case reflect.Pointer:
			walk(path, en.Elem(), zh.Elem())
		case reflect.Struct:
			for i := range en.NumField() {
				walk(path+"."+en.Type().Field(i).Name, en.Field(i), zh.Field(i))
			}
		case reflect.Map:
			for _, k := range en.MapKeys() {
				if v := zh.MapIndex(k); v.IsValid() {
					walk(path+"["+k.String()+"]", en.MapIndex(k), v)
				}
			}
		case reflect.Slice:
			if en.Len() != zh.Len() {
				t.Errorf("%s: %d lines in Chinese, %d in English", path, zh.Len(), en.Len())
			}
		case reflect.String:
			e, z := en.String(), zh.String()
			if e != "" && (z == "" || strings.Count(e, "%") != strings.Count(z, "%")) {
				t.Errorf("%s: %q in English, %q in Chinese", path, e, z)
			}
		}
	}
	walk("Catalog", reflect.ValueOf(present.English), reflect.ValueOf(present.Chinese))
}
