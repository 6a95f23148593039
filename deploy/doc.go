// Package deploy loads a deployment file: the YAML file in which the
// operator of an agent host enables plugins and configures each of them.
//
// # File format
//
// A deployment file is a single YAML document in UTF-8, at most 1 MiB
// ([MaxFileSize]). Its top level is a mapping with exactly one key, plugins,
// which maps a plugin name to that plugin's configuration:
//
//	plugins:
//	  plan-mode:
//	    section: |
//	      You are in plan mode. Explore read-only, then present a plan.
//	  audit-log:          # listed with no value: enabled without configuration
//
// Listing a plugin enables it; plugins are enabled in the order they appear.
// A plugin's value is a mapping of its own settings, or empty (nothing, ~ or
// null) to enable it without settings; whether a plugin accepts an empty value
// is up to that plugin. "plugins: {}" enables no plugins. An empty file, one
// holding only comments, and "plugins:" with nothing under it (or ~, or
// null) are errors: each is far more likely a wrong path, a truncated file
// or lost indentation than a wish for no plugins, so write "plugins: {}" to
// say that.
//
// The loader rejects, each with its own message:
//   - top-level keys other than plugins, and a file without plugins;
//   - a plugin name the program does not offer (the message lists the ones it
//     does);
//   - a key written twice in the same mapping, at any depth (the message gives
//     both positions);
//   - a plugin value that is a number, a string, a list or anything else that
//     is neither a mapping nor empty;
//   - a second YAML document ("---" after the first one);
//   - anchors (&name) and aliases (*name): write each value out in full;
//   - tabs used for indentation, invalid UTF-8, control characters, and any
//     other YAML syntax error;
//   - files larger than 1 MiB.
//
// # Errors
//
// Every problem is reported on its own line as
//
//	FILE:LINE:COL: PLUGIN: KEY: PROBLEM
//
// where PLUGIN and KEY are left out when they do not apply, for example
//
//	deploy.yaml:3:3: plugins: unknown plugin "plan-mod" (known plugins: plan-mode)
//	deploy.yaml:4:5: plan-mode: section: must be a non-empty string
//
// The loader reports every problem it finds in one go (up to 20), in
// file order, including the plugins' own configuration errors, so a single
// validation run shows everything that needs fixing.
//
// # For programs
//
// A program offers plugins by passing [Plugin] values to [Load] or [Parse];
// there is no global registry. Each plugin's Load decodes its YAML node and
// returns an fx.Option; [Deployment.Option] composes the options of all
// enabled plugins in file order. Errors are an errors.Join of [*Error]
// values; configuration problems found by a plugin are best returned as
// [*FieldError] so that they carry their own position and key.
package deploy
