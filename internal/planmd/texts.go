package planmd

// DefaultTitle is the title of a plan without a heading.
const DefaultTitle = "Plan"
