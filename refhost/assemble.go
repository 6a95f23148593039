package refhost

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/dshgo/planmode/host"
)

// sectionSeparator joins the rendered sections of the system prompt.
const sectionSeparator = "\n\n"

// Prompt is the system prompt and tool catalog a request is built with.
// Its slices are shared and must be treated as read-only.
type Prompt struct {
	// System is the non-empty sections joined in (Order, Name) order,
	// separated by a blank line.
	System string
	// Sections names the sections that contributed text, in prompt order.
	Sections []string
	// Tools is the tool catalog, sorted by name.
	Tools []host.ToolDefinition
	// SystemDigest is the hex SHA-256 of System.
	SystemDigest string
	// ToolsDigest is the hex SHA-256 of the catalog's JSON array.
	ToolsDigest string
}

// Assemble renders the system prompt and tool catalog for ac. It needs no
// agent (ac.Agent may be nil, for a preview) and changes nothing.
func (r *Runtime) Assemble(ac host.AssembleContext) Prompt {
	var pc promptCache
	return pc.assemble(r, ac)
}

// promptCache remembers the last rendering for one agent, so that a step
// whose sections render the same texts as the step before reuses the
// joined prompt and its digest without allocating. It is owned by the
// agent's loop goroutine.
type promptCache struct {
	snap   *sectionSnap
	texts  []string // by section, in snapshot order ("" when dropped)
	prompt Prompt
}

func (pc *promptCache) assemble(r *Runtime, ac host.AssembleContext) Prompt {
	ts := r.tools.load()
	ss := r.sections.load()
	same := pc.snap == ss
	if !same {
		pc.snap = ss
		pc.texts = make([]string, len(ss.sections))
	}
	for i, s := range ss.sections {
		t := s.Text(ac)
		if t != pc.texts[i] {
			pc.texts[i] = t
			same = false
		}
	}
	if !same {
		pc.render(ss)
	}
	pc.prompt.Tools = ts.defs
	pc.prompt.ToolsDigest = ts.digest
	return pc.prompt
}

func (pc *promptCache) render(ss *sectionSnap) {
	var b strings.Builder
	names := make([]string, 0, len(ss.sections))
	for i, s := range ss.sections {
		t := pc.texts[i]
		if t == "" {
			continue
		}
		if len(names) > 0 {
			b.WriteString(sectionSeparator)
		}
		b.WriteString(t)
		names = append(names, s.Name)
	}
	sum := sha256.Sum256([]byte(b.String()))
	pc.prompt.System = b.String()
	pc.prompt.Sections = names
	pc.prompt.SystemDigest = hex.EncodeToString(sum[:])
}
