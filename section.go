package planmode

import "github.com/dshgo/planmode/host"

// section returns the plan:policy section.
func (c *Controller) section() host.Section {
	return host.Section{Name: SectionName, Order: SectionOrder, Text: c.sectionText}
}

// sectionText renders plan:policy: the configured text, verbatim, while the
// agent's logged state is active; empty otherwise and for an agent-less
// assembly. Its cost does not grow with the log.
//
// An agent-less assembly is normal (a preview) and renders nothing. Any
// other failure to serve the agent's session (a session without an ID) is
// a host bug: it renders nothing too, and the first such error of a run is
// logged as a warning.
func (c *Controller) sectionText(ac host.AssembleContext) string {
	if ac.Agent == nil {
		return ""
	}
	st, err := c.state(ac.Agent)
	if err != nil {
		c.warnOnce(warnSectionFailed, ac.Agent, err)
		return ""
	}
	if !st.state().Active {
		return ""
	}
	return c.p.Config.Section
}
