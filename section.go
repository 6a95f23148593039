package planmode

import "github.com/dshgo/planmode/host"

// section returns the plan:policy section.
func (c *Controller) section() host.Section {
	return host.Section{Name: SectionName, Order: SectionOrder, Text: c.sectionText}
}

// sectionText renders plan:policy: the configured text, verbatim, while the
// agent's logged state is active; nothing otherwise or without an agent.
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
