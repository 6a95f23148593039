package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
		switch {
		case p.Name == "":
			return nil, fmt.Errorf("deploy: "+msgBadPluginName+": %w", i, ErrBadPlugin)
		case p.Load == nil && p.LoadFile == nil:
			return nil, fmt.Errorf("deploy: "+msgBadPluginLoad+": %w", p.Name, ErrBadPlugin)
		}
		if _, dup := offered[p.Name]; dup {
			return nil, fmt.Errorf("deploy: "+msgDuplicateRegister+": %w", p.Name, ErrBadPlugin)
		}
		offered[p.Name] = p
	}
	return offered, nil
}

// loader holds the state of one Parse.
type loader struct {
	file      string
	data      []byte
	offered   map[string]Plugin
	errs      []*Error
	aliasSeen bool // the first anchor or alias has been reported
}

// add records a problem at line:col (clamped to 1:1).
func (l *loader) add(line, col int, plugin, key, problem string) {
	l.errs = append(l.errs, &Error{File: l.file, Line: max(line, 1), Column: max(col, 1), Plugin: plugin, Key: key, Problem: problem})
}

// addAt records a problem at node n.
func (l *loader) addAt(n *yaml.Node, plugin, key, problem string) {
	l.add(n.Line, n.Column, plugin, key, problem)
}

// addSyntax records a problem that belongs to no plugin or key.
func (l *loader) addSyntax(line, col int, problem string) { l.add(line, col, "", "", problem) }

// joined sorts the errors into file order, caps them at MaxErrors and joins them.
func (l *loader) joined() error {
	slices.SortStableFunc(l.errs, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	errs := make([]error, 0, min(len(l.errs), MaxErrors+1))
	for i, e := range l.errs {
		if i == MaxErrors {
			errs = append(errs, &Error{File: l.file, Line: e.Line, Column: e.Column, Problem: fmt.Sprintf(msgTooManyErrors, MaxErrors)})
			break
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// run parses and checks the file; the result is meaningful only without errors.
func (l *loader) run() *Deployment {
	if len(l.data) > MaxFileSize {
		l.add(1, 1, "", "", msgTooLarge)
		return nil
	}
	if line, col, problem, ok := checkEncoding(l.data); !ok {
		l.add(line, col, "", "", problem)
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
	l.firstAnchor(root)
	return l.top(root)
}

// firstAnchor reports the first anchor or alias in file order, naming its
// plugin and key when it is inside a plugin's configuration. Later ones are
// not reported, but they still keep their plugin from loading (see check).
func (l *loader) firstAnchor(root *yaml.Node) {
	if l.walkAnchor(root, "", nil) || root.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if l.walkAnchor(k, "", nil) {
			return
		}
		if k.Kind != yaml.ScalarNode || k.Value != keyPlugins || v.Kind != yaml.MappingNode {
			if l.walkAll(v, "", (*keyPath)(nil).child(k)) {
				return
			}
			continue
		}
		pluginsPath := literalPath(keyPlugins)
		if l.walkAnchor(v, "", pluginsPath) {
			return
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			name, conf := v.Content[j], v.Content[j+1]
			if l.walkAll(name, "", pluginsPath) || l.walkAll(conf, name.Value, nil) {
				return
			}
		}
	}
}

// walkAnchor checks n alone; it reports whether n has an anchor or is an alias.
func (l *loader) walkAnchor(n *yaml.Node, plugin string, path *keyPath) bool {
	return !l.checkAnchor(n, plugin, path)
}

// walkAll checks n and everything under it, stopping at the first anchor or
// alias; aliases are not followed.
func (l *loader) walkAll(n *yaml.Node, plugin string, path *keyPath) bool {
	if l.walkAnchor(n, plugin, path) {
		return true
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			kp := path.child(k)
			if l.walkAll(k, plugin, kp) || l.walkAll(v, plugin, kp) {
				return true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if l.walkAll(c, plugin, path.item(i)) {
				return true
			}
		}
	}
	return false
}

// top checks the top-level mapping and loads the plugins under it.
func (l *loader) top(root *yaml.Node) *Deployment {
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		l.add(1, 1, "", "", msgEmpty)
		return nil
	}
	if !l.checkAnchor(root, "", nil) {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		l.addAt(root, "", "", fmt.Sprintf(msgTopLevelKind, Describe(root)))
		return nil
	}
	d := &Deployment{File: l.file}
	var plugins *yaml.Node
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !l.checkAnchor(k, "", nil) {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			l.addAt(k, "", "", fmt.Sprintf(msgTopKeyKind, Describe(k)))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			l.addAt(k, "", "", fmt.Sprintf(msgDuplicateTopKey, k.Value, first.Line, first.Column))
			continue
		}
		seen[k.Value] = k
		if k.Value != keyPlugins {
			l.addAt(k, "", "", fmt.Sprintf(msgUnknownTopKey, k.Value))
			continue
		}
		plugins = v
		l.plugins(d, v)
	}
	if plugins == nil {
		l.addAt(root, "", "", msgNoPlugins)
	}
	return d
}

// plugins loads the entries of the plugins mapping v into d.
func (l *loader) plugins(d *Deployment, v *yaml.Node) {
	const key = keyPlugins
	pluginsPath := literalPath(key)
	if !l.checkAnchor(v, "", pluginsPath) {
		return
	}
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		// Like an empty file: more likely a truncated file or a lost
		// indentation than a wish for no plugins, which "plugins: {}" says.
		l.addAt(v, "", key, msgPluginsNull)
		return
	}
	if v.Kind != yaml.MappingNode {
		l.addAt(v, "", key, fmt.Sprintf(msgPluginsKind, Describe(v)))
		return
	}
	seen := map[string]*yaml.Node{}
	defer l.requires(seen)
	for i := 0; i+1 < len(v.Content); i += 2 {
		var err error
		name, conf := v.Content[i], v.Content[i+1]
		if !l.checkAnchor(name, "", pluginsPath) {
			continue
		}
		if name.Kind != yaml.ScalarNode {
			l.addAt(name, "", key, fmt.Sprintf(msgPluginNameKind, Describe(name)))
			continue
		}
		if first, dup := seen[name.Value]; dup {
			l.addAt(name, "", key, fmt.Sprintf(msgDuplicatePlugin, name.Value, first.Line, first.Column))
			continue
		}
		seen[name.Value] = name
		p, ok := l.offered[name.Value]
		if !ok {
			l.addAt(name, "", key, l.unknownPlugin(name.Value))
			continue
		}
		if !l.checkAnchor(conf, p.Name, nil) {
			continue
		}
		if conf.Kind != yaml.MappingNode && !(conf.Kind == yaml.ScalarNode && conf.ShortTag() == "!!null") {
			l.addAt(conf, p.Name, "", fmt.Sprintf(msgEntryKind, Describe(conf)))
			continue
		}
		if !l.check(conf, p.Name, nil) {
			continue
		}
		var opt fx.Option
		if p.LoadFile != nil {
			opt, err = p.LoadFile(l.file, conf)
		} else {
			opt, err = p.Load(conf)
		}
		if err != nil {
			l.pluginError(p.Name, name, err)
			continue
		}
		if opt == nil {
			opt = fx.Options()
		}
		d.Plugins = append(d.Plugins, p.Name)
		d.options = append(d.options, opt)
		if d.positions == nil {
			d.positions = map[string][2]int{}
		}
		d.positions[p.Name] = [2]int{name.Line, name.Column}
	}
}

// requires reports, for every listed plugin, each plugin it requires that
// the file does not list.
func (l *loader) requires(listed map[string]*yaml.Node) {
	for name, node := range listed {
		p, ok := l.offered[name]
		if !ok {
			continue
		}
		for _, need := range p.Requires {
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
	known := make([]string, 0, len(l.offered))
	for n := range l.offered {
		known = append(known, n)
	}
	slices.Sort(known)
	return fmt.Sprintf(msgUnknownPlugin, name, strings.Join(known, ", "))
}

// checkAnchor reports an anchor on n or n being an alias (only the first one
// in the file is reported). It returns false when n has either.
func (l *loader) checkAnchor(n *yaml.Node, plugin string, path *keyPath) bool {
	var problem string
	switch {
	case n.Kind == yaml.AliasNode:
		problem = fmt.Sprintf(msgAlias, n.Value)
	case n.Anchor != "":
		problem = fmt.Sprintf(msgAnchor, n.Anchor)
	default:
		return true
	}
	if !l.aliasSeen {
		l.aliasSeen = true
		l.addAt(n, plugin, path.String(), problem)
	}
	return false
}

// check walks a plugin's configuration for anchors, aliases and duplicate
// keys; path is the key path of n. Aliases are never followed, so an alias
// bomb costs no more than its text. It returns whether n is free of them.
func (l *loader) check(n *yaml.Node, plugin string, path *keyPath) bool {
	if !l.checkAnchor(n, plugin, path) {
		return false
	}
	ok := true
	switch n.Kind {
	case yaml.MappingNode:
		var seen map[string]*yaml.Node
		if len(n.Content) > 2 {
			seen = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			kp := path.child(k)
			if k.Kind == yaml.ScalarNode && seen != nil {
				if first, dup := seen[k.Value]; dup {
					l.addAt(k, plugin, kp.String(), DuplicateKey(first))
					ok = false
				} else {
					seen[k.Value] = k
				}
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

// pluginError records what a plugin's Load returned. entry is the plugin's
// name node, used where the plugin gives no position.
func (l *loader) pluginError(plugin string, entry *yaml.Node, err error) {
	for _, leaf := range leaves(err, nil) {
		var fe *FieldError
		var te *yaml.TypeError
		switch {
		case errors.As(leaf, &fe):
			l.pluginProblem(plugin, entry, *fe, leaf)
		case errors.As(leaf, &te):
			for _, fe := range typeErrors(l.data, te) {
				l.pluginProblem(plugin, entry, fe, leaf)
			}
		default:
			l.pluginProblem(plugin, entry, FieldError{Problem: leaf.Error()}, leaf)
		}
	}
}

// pluginProblem records one problem a plugin reported, placing it at the
// plugin's entry when the plugin gave no position.
func (l *loader) pluginProblem(plugin string, entry *yaml.Node, fe FieldError, cause error) {
	line, col := fe.Line, fe.Column
	if line <= 0 {
		line, col = entry.Line, entry.Column
	}
	e := &Error{File: l.file, Line: line, Column: max(col, 1), Plugin: plugin, Key: oneLine(fe.Key), Problem: oneLine(fe.Problem), err: cause}
	l.errs = append(l.errs, e)
}

// leaves flattens joined errors (errors.Join and the like).
func leaves(err error, out []error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e != nil {
				out = leaves(e, out)
			}
		}
		return out
	}
	return append(out, err)
}

// oneLine keeps each error on one line of output.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var parts []string
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if line = strings.TrimSpace(line); line != "" {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, "; ")
}
