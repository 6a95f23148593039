package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/catalog"
)

// File name suffixes of a translation pair NAME.md / NAME.zh.md and its
// record NAME.i18n.yaml.
const (
	suffixEnglish = ".md"
	suffixChinese = ".zh.md"
	suffixRecord  = ".i18n.yaml"
)

// translationRecord is the content of a NAME.i18n.yaml file.
type translationRecord struct {
	// English is the English side, NAME.md.
	English recordSide `yaml:"en"`
	// Chinese is the Chinese side, NAME.zh.md.
	Chinese recordSide `yaml:"zh"`
}

// recordSide is one side of a pair as last reviewed.
type recordSide struct {
	// File is the page's base name.
	File string `yaml:"file"`
	// Digest is catalog.ProseDigest of the page.
	Digest string `yaml:"digest"`
}

// pair is a page pair in a directory.
type pair struct {
	// dir is the directory as given, slash-separated.
	dir string
	// name is the page's base name without suffixes.
	name string
}

func (p pair) english() string { return path.Join(p.dir, p.name+suffixEnglish) }
func (p pair) chinese() string { return path.Join(p.dir, p.name+suffixChinese) }
func (p pair) record() string  { return path.Join(p.dir, p.name+suffixRecord) }

// pairDirs returns the directories of g.pages, each once, sorted.
func (g *generator) pairDirs() []string {
	var dirs []string
	for _, p := range g.pages {
		if d := path.Dir(filepath.ToSlash(p)); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	return dirs
}

// checkPairs checks every translation pair in the pages' directories. With
// record it writes each pair's record instead of comparing it. It returns
// the problems found, in a fixed order, and whether every record was
// already current.
func (g *generator) checkPairs(record bool) (problems []string, current bool, err error) {
	current = true
	for _, dir := range g.pairDirs() {
		entries, err := os.ReadDir(g.path(dir))
		if err != nil {
			return nil, false, fmt.Errorf("doc directory %s: %w", dir, err)
		}
		var english, chinese, records []string
		for _, e := range entries {
			n := e.Name()
			switch {
			case e.IsDir():
			case strings.HasSuffix(n, suffixChinese):
				chinese = append(chinese, strings.TrimSuffix(n, suffixChinese))
			case strings.HasSuffix(n, suffixEnglish):
				english = append(english, strings.TrimSuffix(n, suffixEnglish))
			case strings.HasSuffix(n, suffixRecord):
				records = append(records, strings.TrimSuffix(n, suffixRecord))
			}
		}
		names := slices.Concat(english, chinese)
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			p := pair{dir: dir, name: name}
			switch {
			case !slices.Contains(chinese, name):
				problems = append(problems, fmt.Sprintf(msgNoTranslation, p.english(), p.chinese()))
			case !slices.Contains(english, name):
				problems = append(problems, fmt.Sprintf(msgNoTranslation, p.chinese(), p.english()))
			default:
				ps, ok, err := g.checkPair(p, record)
				if err != nil {
					return nil, false, err
				}
				problems = append(problems, ps...)
				current = current && ok
			}
		}
		for _, name := range records {
			if p := (pair{dir: dir, name: name}); !slices.Contains(english, name) || !slices.Contains(chinese, name) {
				problems = append(problems, fmt.Sprintf(msgOrphanRecord, p.record(), p.english(), p.chinese()))
			}
		}
	}
	return problems, current, nil
}

// checkPair compares one pair's heading structure and its record, or
// writes the record (record). It reports whether the record was current.
func (g *generator) checkPair(p pair, record bool) ([]string, bool, error) {
	en, err := os.ReadFile(g.path(p.english()))
	if err != nil {
		return nil, false, err
	}
	zh, err := os.ReadFile(g.path(p.chinese()))
	if err != nil {
		return nil, false, err
	}
	var problems []string
	if d := headingDifference(p.english(), en, p.chinese(), zh); d != "" {
		problems = append(problems, d)
	}
	want := translationRecord{
		English: recordSide{File: p.name + suffixEnglish},
		Chinese: recordSide{File: p.name + suffixChinese},
	}
	if want.English.Digest, err = catalog.ProseDigest(en); err != nil {
		return nil, false, fmt.Errorf("page %s: %w", p.english(), err)
	}
	if want.Chinese.Digest, err = catalog.ProseDigest(zh); err != nil {
		return nil, false, fmt.Errorf("page %s: %w", p.chinese(), err)
	}

	recPath := g.path(p.record())
	old, err := os.ReadFile(recPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("record %s: %w", p.record(), err)
	}
	if record {
		if len(problems) > 0 {
			return problems, false, nil // never record a pair that is out of shape
		}
		b, err := g.encodeRecord(p, want)
		if err != nil {
			return nil, false, err
		}
		if bytes.Equal(b, old) {
			return nil, true, nil
		}
		if err := writeFile(recPath, b); err != nil {
			return nil, false, fmt.Errorf("record %s: %w", p.record(), err)
		}
		fmt.Fprintf(g.out, msgRecorded, p.record())
		return nil, false, nil
	}

	if old == nil {
		return append(problems, fmt.Sprintf(msgNoRecord, p.record(), p.english(), p.chinese())), false, nil
	}
	got, err := decodeRecord(old)
	if err != nil {
		return append(problems, fmt.Sprintf("%s: %v", p.record(), err)), false, nil
	}
	if got.English.File != want.English.File || got.Chinese.File != want.Chinese.File {
		return append(problems, fmt.Sprintf(msgRecordNames, p.record(),
			got.English.File+", "+got.Chinese.File, want.English.File+", "+want.Chinese.File)), false, nil
	}
	enChanged := got.English.Digest != want.English.Digest
	zhChanged := got.Chinese.Digest != want.Chinese.Digest
	switch {
	case enChanged && zhChanged:
		problems = append(problems, fmt.Sprintf(msgBothSides, p.english(), p.chinese(), p.record()))
	case enChanged:
		problems = append(problems, fmt.Sprintf(msgOneSide, p.english(), p.record(), p.chinese()))
	case zhChanged:
		problems = append(problems, fmt.Sprintf(msgOneSide, p.chinese(), p.record(), p.english()))
	}
	return problems, !enChanged && !zhChanged, nil
}

// encodeRecord renders a record file: a comment header and the YAML.
func (g *generator) encodeRecord(p pair, r translationRecord) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, recordHeader, p.name+suffixEnglish, p.name+suffixChinese)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("record %s: %w", p.record(), err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("record %s: %w", p.record(), err)
	}
	return b.Bytes(), nil
}

// decodeRecord parses a record strictly: unknown keys and missing values are
// errors.
func decodeRecord(b []byte) (translationRecord, error) {
	var r translationRecord
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("malformed record: %w", err)
	}
	for _, s := range []struct{ key, v string }{
		{"en.file", r.English.File}, {"en.digest", r.English.Digest},
		{"zh.file", r.Chinese.File}, {"zh.digest", r.Chinese.Digest},
	} {
		if s.v == "" {
			return r, fmt.Errorf("malformed record: %s is missing", s.key)
		}
	}
	return r, nil
}

// headingDifference describes where two pages' heading structures (the
// levels of their headings, in order) part, or returns "" when they match.
func headingDifference(enName string, en []byte, zhName string, zh []byte) string {
	a, b := catalog.Headings(en), catalog.Headings(zh)
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i].Level != b[i].Level {
			first := fmt.Sprintf(msgHeadingLevel, i+1, a[i].Level, enName, a[i].Line, a[i].Text,
				b[i].Level, zhName, b[i].Line, b[i].Text)
			return fmt.Sprintf(msgHeadings, enName, zhName, first)
		}
	}
	if len(a) != len(b) {
		extra := fmt.Sprintf(msgHeadingCount, enName, len(a), zhName, len(b))
		return fmt.Sprintf(msgHeadings, enName, zhName, extra)
	}
	return ""
}
