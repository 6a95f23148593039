package refhost

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/dshgo/planmode/host"
)

// Prompt is the system prompt and tool catalog a request is built with.
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
	sections := r.Sections()
	p := Prompt{Sections: make([]string, 0, len(sections))}
	var texts []string
	for _, s := range sections {
		if t := s.Text(ac); t != "" {
			texts = append(texts, t)
			p.Sections = append(p.Sections, s.Name)
		}
	}
	p.System = strings.Join(texts, "\n\n")
	p.SystemDigest = digest(p.System)

	p.Tools, p.ToolsDigest = r.Catalog()
	return p
}

// digest returns the hex SHA-256 of s.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
