package tui

import (
	"reflect"
	"strings"
	"testing"
)

// TestFormCatalogsAreComplete protects the Chinese form from English gaps.
func TestFormCatalogsAreComplete(t *testing.T) {
	en, zh := reflect.ValueOf(formCatalogs["en"]), reflect.ValueOf(formCatalogs["zh"])
	for i := range en.NumField() {
		e, z := en.Field(i).String(), zh.Field(i).String()
		if e == "" || z == "" || strings.Count(e, "%") != strings.Count(z, "%") {
			t.Errorf("%s: %q / %q", en.Type().Field(i).Name, e, z)
		}
	}
	if English.formTexts() != formCatalogs["en"] || Chinese.formTexts() != formCatalogs["zh"] {
		t.Error("the catalogs do not pick their form texts")
	}
}
