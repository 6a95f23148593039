// Package scripted holds deterministic test doubles for the reference host:
// a [Model] that answers from a script (Go values or YAML) and records every
// request, and a [Provider] that answers user questions from queues and can
// hold an Ask open until it is released or cancelled.
//
// # YAML scripts
//
// A script is a mapping with one key, steps: a list of responses, one per
// Generate call, in order.
//
//	steps:
//	  - text: Let me look.          # assistant text ...
//	    reasoning: Check a.go first. # optional reasoning text (as thinking models return)
//	    toolCalls:                  # ... and/or tool calls
//	      - id: c1                  # optional; default "call-<step>-<n>"
//	        name: read              # required
//	        input: {path: a.go}     # optional mapping, sent as JSON; default {}
//	  - error: rate limited         # a request error with this message
//	  - block: true                 # wait until the request is cancelled
//	  - text: Done.
//
// text and error are strings (quote values YAML would read as numbers or
// booleans), block is a boolean. A step is a response (text, toolCalls or
// both), an error, or a block; unknown keys and mixtures are errors that
// name the line.
package scripted
