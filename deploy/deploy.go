package deploy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// MaxFileSize is the largest deployment file accepted, in bytes (1 MiB).
const MaxFileSize = 1 << 20

// Plugin is a plugin the program offers to deployments. Programs pass the
// plugins they offer to [Load] or [Parse] explicitly; there is no registry.
type Plugin struct {
	// Name is the plugin's key under plugins: in the file, e.g. "plan-mode".
	Name string
	// Load decodes and validates the plugin's configuration node and returns
	// the fx.Option that installs the plugin. The node is the value under
	// the plugin's name: a mapping, or a null scalar when the entry is empty.
	// Load reports configuration problems as a *FieldError, several joined
	// with errors.Join, or any other error (reported at the plugin's entry).
	// Load may run even when the file has other errors, so it must not have
	// side effects; a nil option means the plugin adds nothing.
	Load func(node *yaml.Node) (fx.Option, error)
	// LoadFile, when set, is used instead of Load: it also gets the name of
	// the deployment file, for plugins that resolve relative paths against
	// the file's directory. The same rules as for Load apply.
	LoadFile func(file string, node *yaml.Node) (fx.Option, error)
	// Requires names the plugins this one needs enabled in the same file
	// (a companion needs the plugin it extends). The loader reports each
	// one that is missing at this plugin's entry, saying which to enable.
	Requires []string
}

// Deployment is a loaded deployment file.
type Deployment struct {
	// File is the file name the deployment was loaded from.
	File string
	// Plugins holds the names of the enabled plugins, in file order.
	Plugins []string

	options   []fx.Option
	positions map[string][2]int
}

// Position returns the line and column of an enabled plugin's name in the
// file, for problems found after loading (when the host starts) that belong
// to that plugin. ok is false for a plugin that is not enabled.
func (d *Deployment) Position(plugin string) (line, col int, ok bool) {
	p, ok := d.positions[plugin]
	return p[0], p[1], ok
}

// Option returns the options of all enabled plugins, in file order.
func (d *Deployment) Option() fx.Option {
	return fx.Options(d.options...)
}

// Load reads the deployment file at path and loads it with the offered
// plugins. Problems in the file are returned as an errors.Join of [*Error]
// in file order; a file that cannot be read gives the os error, wrapped.
// At most MaxFileSize+1 bytes are read.
func Load(path string, plugins ...Plugin) (*Deployment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("deploy: read %s: %w", path, err)
	}
	return Parse(path, data, plugins...)
}

// Parse loads a deployment from data; file names it in error messages.
// Problems in the data are returned as an errors.Join of [*Error] in file
// order. An invalid plugin list gives an error wrapping [ErrBadPlugin].
func Parse(file string, data []byte, plugins ...Plugin) (*Deployment, error) {
	offered, err := offer(plugins)
	if err != nil {
		return nil, err
	}
	l := &loader{file: file, data: data, offered: offered}
	d := l.run()
	if len(l.errs) > 0 {
		return nil, l.joined()
	}
	return d, nil
}

// offer checks the plugin list and indexes it by name.
func offer(plugins []Plugin) (map[string]Plugin, error) {
	offered := make(map[string]Plugin, len(plugins))
	for i, p := range plugins {
		_, dup := offered[p.Name]
		switch {
		case p.Name == "":
			return nil, fmt.Errorf("deploy: "+msgBadPluginName+": %w", i, ErrBadPlugin)
		case p.Load == nil && p.LoadFile == nil:
			return nil, fmt.Errorf("deploy: "+msgBadPluginLoad+": %w", p.Name, ErrBadPlugin)
		case dup:
			return nil, fmt.Errorf("deploy: "+msgDuplicateRegister+": %w", p.Name, ErrBadPlugin)
		}
		offered[p.Name] = p
	}
	return offered, nil
}

// loader holds the state of one Parse.
type loader struct {
	file    string
	data    []byte
	offered map[string]Plugin
	errs    []*Error
}

// add records a problem at line:col (clamped to 1:1), keeping its text on
// one line.
func (l *loader) add(line, col int, plugin, key, problem string) {
	l.errs = append(l.errs, &Error{File: l.file, Line: max(line, 1), Column: max(col, 1), Plugin: plugin, Key: oneLine(key), Problem: oneLine(problem)})
}

// addAt records a problem at node n.
func (l *loader) addAt(n *yaml.Node, plugin, key, problem string) {
	l.add(n.Line, n.Column, plugin, key, problem)
}

// addSyntax records a problem that belongs to no plugin or key.
func (l *loader) addSyntax(line, col int, problem string) { l.add(line, col, "", "", problem) }

// joined sorts the errors into file order, caps them at maxErrors and joins them.
func (l *loader) joined() error {
	slices.SortStableFunc(l.errs, func(a, b *Error) int {
		return cmp.Or(a.Line-b.Line, a.Column-b.Column)
	})
	if len(l.errs) > maxErrors {
		next := l.errs[maxErrors]
		l.errs = append(l.errs[:maxErrors], &Error{File: l.file, Line: next.Line, Column: next.Column, Problem: fmt.Sprintf(msgTooManyErrors, maxErrors)})
	}
	errs := make([]error, len(l.errs))
	for i, e := range l.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// run parses and checks the file; the result is meaningful only without errors.
func (l *loader) run() *Deployment {
	if len(l.data) > MaxFileSize {
		l.add(1, 1, "", "", msgTooLarge)
		return nil
	}
	if off, problem := checkEncoding(l.data); problem != "" {
		line, col := position(l.data, off)
		l.addSyntax(line, col, problem)
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(l.data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			l.add(1, 1, "", "", msgEmpty)
		} else {
			l.addSyntax(syntaxError(l.data, err))
		}
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		l.addAt(&next, "", "", msgSecondDocument)
	case !errors.Is(err, io.EOF):
		l.addSyntax(syntaxError(l.data, err))
	}
	if len(doc.Content) == 0 {
		l.add(1, 1, "", "", msgEmpty)
		return nil
	}
	root := doc.Content[0]
	l.firstAnchor(root, "", nil)
	return l.top(root)
}

// anchored reports whether n has an anchor or is an alias. The loader
// reports only the first one in the file (see firstAnchor) and loads no
// plugin whose configuration has one.
func anchored(n *yaml.Node) bool { return n.Anchor != "" || n.Kind == yaml.AliasNode }

// firstAnchor reports the first anchor or alias in n, in file order, and
// says whether there is one; aliases are not followed. path is the key path
// of n; inside a plugin's configuration it starts at the configuration.
func (l *loader) firstAnchor(n *yaml.Node, plugin string, path keyPath) bool {
	switch {
	case n.Kind == yaml.AliasNode:
		l.addAt(n, plugin, path.String(), fmt.Sprintf(msgAlias, n.Value))
		return true
	case n.Anchor != "":
		l.addAt(n, plugin, path.String(), fmt.Sprintf(msgAnchor, n.Anchor))
		return true
	}
	inPlugins := n.Kind == yaml.MappingNode && plugin == "" && len(path) == 1 && path[0].key != nil && path[0].key.Value == keyPlugins
	for i, c := range n.Content {
		p, kp := plugin, path
		switch {
		case n.Kind == yaml.SequenceNode:
			kp = path.item(i)
		case inPlugins && i%2 == 1:
			p, kp = n.Content[i-1].Value, nil
		case n.Kind == yaml.MappingNode && !inPlugins:
			kp = path.key(n.Content[i&^1])
		}
		if l.firstAnchor(c, p, kp) {
			return true
		}
	}
	return false
}

// top checks the top-level mapping and loads the plugins under it.
func (l *loader) top(root *yaml.Node) *Deployment {
	switch {
	case root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null":
		l.add(1, 1, "", "", msgEmpty)
		return nil
	case anchored(root):
		return nil
	case root.Kind != yaml.MappingNode:
		l.addAt(root, "", "", fmt.Sprintf(msgTopLevelKind, Describe(root)))
		return nil
	}
	d := &Deployment{File: l.file, positions: map[string][2]int{}}
	seen := firsts{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if anchored(k) {
			continue
		}
		switch first := seen.add(k); {
		case k.Kind != yaml.ScalarNode:
			l.addAt(k, "", "", fmt.Sprintf(msgTopKeyKind, Describe(k)))
		case first != nil:
			l.addAt(k, "", "", fmt.Sprintf(msgDuplicateTopKey, k.Value, first.Line, first.Column))
		case k.Value != keyPlugins:
			l.addAt(k, "", "", fmt.Sprintf(msgUnknownTopKey, k.Value))
		default:
			l.plugins(d, v)
		}
	}
	if seen[keyPlugins] == nil {
		l.addAt(root, "", "", msgNoPlugins)
	}
	return d
}

// firsts holds the first key of each name in one mapping.
type firsts map[string]*yaml.Node

// add remembers scalar key k and returns the key of the same name seen
// before it, or nil.
func (f firsts) add(k *yaml.Node) *yaml.Node {
	if k.Kind != yaml.ScalarNode {
		return nil
	}
	if first, ok := f[k.Value]; ok {
		return first
	}
	f[k.Value] = k
	return nil
}

// plugins loads the entries of the plugins mapping v into d.
func (l *loader) plugins(d *Deployment, v *yaml.Node) {
	switch {
	case anchored(v):
		return
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		// Like an empty file: more likely a truncated file or a lost
		// indentation than a wish for no plugins, which "plugins: {}" says.
		l.addAt(v, "", keyPlugins, msgPluginsNull)
		return
	case v.Kind != yaml.MappingNode:
		l.addAt(v, "", keyPlugins, fmt.Sprintf(msgPluginsKind, Describe(v)))
		return
	}
	listed := firsts{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, conf := v.Content[i], v.Content[i+1]
		if anchored(name) {
			continue
		}
		p, offered := l.offered[name.Value]
		switch first := listed.add(name); {
		case name.Kind != yaml.ScalarNode:
			l.addAt(name, "", keyPlugins, fmt.Sprintf(msgPluginNameKind, Describe(name)))
		case first != nil:
			l.addAt(name, "", keyPlugins, fmt.Sprintf(msgDuplicatePlugin, name.Value, first.Line, first.Column))
		case !offered:
			l.addAt(name, "", keyPlugins, l.unknownPlugin(name.Value))
		case anchored(conf):
		case conf.Kind != yaml.MappingNode && !(conf.Kind == yaml.ScalarNode && conf.ShortTag() == "!!null"):
			l.addAt(conf, p.Name, "", fmt.Sprintf(msgEntryKind, Describe(conf)))
		case l.check(conf, p.Name, nil):
			l.load(d, p, name, conf)
		}
	}
	l.requires(listed)
}

// load runs plugin p's Load on its configuration conf and adds the result
// to d; name is the plugin's entry.
func (l *loader) load(d *Deployment, p Plugin, name, conf *yaml.Node) {
	var opt fx.Option
	var err error
	if p.LoadFile != nil {
		opt, err = p.LoadFile(l.file, conf)
	} else {
		opt, err = p.Load(conf)
	}
	if err != nil {
		l.pluginError(p.Name, name, err)
		return
	}
	if opt == nil {
		opt = fx.Options()
	}
	d.Plugins = append(d.Plugins, p.Name)
	d.options = append(d.options, opt)
	d.positions[p.Name] = [2]int{name.Line, name.Column}
}

// requires reports, for every listed plugin, each plugin it requires that
// the file does not list.
func (l *loader) requires(listed firsts) {
	for name, node := range listed {
		for _, need := range l.offered[name].Requires {
			if _, ok := listed[need]; !ok {
				l.addAt(node, name, "", fmt.Sprintf(msgRequires, need, need))
			}
		}
	}
}

// unknownPlugin is the problem text for a plugin name nobody offers.
func (l *loader) unknownPlugin(name string) string {
	if len(l.offered) == 0 {
		return fmt.Sprintf(msgNoKnownPlugins, name)
	}
	return fmt.Sprintf(msgUnknownPlugin, name, strings.Join(slices.Sorted(maps.Keys(l.offered)), ", "))
}

// check walks a plugin's configuration for anchors, aliases and duplicate
// keys, reporting the duplicates; path is the key path of n. Aliases are
// never followed, so an alias bomb costs no more than its text. It returns
// whether n is free of them.
func (l *loader) check(n *yaml.Node, plugin string, path keyPath) bool {
	if anchored(n) {
		return false
	}
	ok := true
	switch n.Kind {
	case yaml.MappingNode:
		seen := firsts{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			kp := path.key(k)
			if first := seen.add(k); first != nil {
				l.addAt(k, plugin, kp.String(), DuplicateKey(first))
				ok = false
			}
			ok = l.check(k, plugin, kp) && ok
			ok = l.check(v, plugin, kp) && ok
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			ok = l.check(c, plugin, path.item(i)) && ok
		}
	}
	return ok
}

// pluginError records what a plugin's Load returned, placing a problem
// at the plugin's entry when the plugin gave no position.
func (l *loader) pluginError(plugin string, entry *yaml.Node, err error) {
	for _, leaf := range leaves(err) {
		var fe *FieldError
		var te *yaml.TypeError
		problems := []FieldError{{Problem: leaf.Error()}}
		switch {
		case errors.As(leaf, &fe):
			problems = []FieldError{*fe}
		case errors.As(leaf, &te):
			problems = typeErrors(l.data, te)
		}
		for _, p := range problems {
			if p.Line <= 0 {
				p.Line, p.Column = entry.Line, entry.Column
			}
			l.add(p.Line, p.Column, plugin, p.Key, p.Problem)
			l.errs[len(l.errs)-1].err = leaf
		}
	}
}

// leaves flattens joined errors (errors.Join and the like).
func leaves(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		if e != nil {
			out = append(out, leaves(e)...)
		}
	}
	return out
}

// oneLine keeps each error on one line of output.
func oneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(slices.DeleteFunc(lines, func(s string) bool { return s == "" }), "; ")
}
