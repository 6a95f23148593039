package main

// The generator's messages, in one place. The %s verbs take page paths,
// record paths and commands, in the order the names say.
const (
	// msgUpToDate is the whole output of a passing -check.
	msgUpToDate = "up to date"
	// msgStale introduces a page's diff: page.
	msgStale = "%s: the generated API catalog is stale:\n"
	// msgFixRegions closes a report of stale regions: command.
	msgFixRegions = "The docs do not match the code. To regenerate them, run:\n\n\t%s\n\n"
	// msgFixPairs closes a report of translation problems: command.
	msgFixPairs = "Once both sides of each pair say the same, record them as reviewed:\n\n\t%s -record\n\n"
	// msgUpdated reports a page that was written: page.
	msgUpdated = "updated %s\n"
	// msgRecorded reports a translation record that was written: record.
	msgRecorded = "recorded %s\n"

	// msgNoRecord: record, English page, Chinese page.
	msgNoRecord = "%s: no translation record for %s and %s"
	// msgOneSide: changed page, record, unchanged page.
	msgOneSide = "%s: hand-written text changed since %s was recorded, but %s did not: bring it in step"
	// msgBothSides: English page, Chinese page, record.
	msgBothSides = "%s and %s: both changed since %s was recorded: check that they still say the same"
	// msgRecordNames: record, the pages it names, the pages it should name.
	msgRecordNames = "%s: records %s, not %s"
	// msgNoTranslation: page, missing page.
	msgNoTranslation = "%s: has no translation %s; every doc page comes in English (NAME.md) and Chinese (NAME.zh.md)"
	// msgOrphanRecord: record, English page, Chinese page.
	msgOrphanRecord = "%s: records a pair that is gone (%s, %s); delete it"
	// msgHeadings: English page, Chinese page, where they differ.
	msgHeadings = "%s and %s: the heading structures differ (the two sides share the same heading levels in the same order): %s"
	// msgHeadingLevel: heading number, level, English page, line, text,
	// level, Chinese page, line, text.
	msgHeadingLevel = "heading %d is level %d in %s (line %d, %q) but level %d in %s (line %d, %q)"
	// msgHeadingCount: English page, count, Chinese page, count.
	msgHeadingCount = "%s has %d headings, %s has %d"

	// recordHeader opens every translation record: English page, Chinese
	// page.
	recordHeader = "# Translation record of %s and %s.\n" +
		"# A digest of each side's hand-written text (everything outside the\n" +
		"# generated region) as of the last review of both sides.\n" +
		"# Written by scripts/gen-catalog -record; DO NOT EDIT.\n"
)
