package planmode

import "github.com/dshgo/planmode/host"

// section returns the plan:policy section.
func (c *Controller) section() host.Section {
	return host.Section{Name: SectionName, Order: SectionOrder, Text: c.sectionText}
}

// sectionText renders plan:policy: the configured text, verbatim, while the
// agent's logged state is active; empty otherwise and for an agent-less
// assembly. Its cost does not grow with the log.
func (c *Controller) sectionText(ac host.AssembleContext) string {
	st, err := c.state(ac.Agent)
	if err != nil || !st.load().active() {
		return ""
	}
	return c.cfg.Section
}
