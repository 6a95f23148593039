package main

import (
	"flag"
	"fmt"
	"strings"
)

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments ("inspect FILE -json"); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) > 0 && len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		i := 0
		for i < len(rest) && !isFlag(rest[i]) {
			i++
		}
		positional = append(positional, rest[:i]...)
		if i == len(rest) {
			break
		}
		args = rest[i:]
	}
	// Leave the positional arguments where fs.Args finds them.
	return fs.Parse(append([]string{"--"}, positional...))
}

func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' && a != "--" }

// extraArgs reports unexpected positional arguments; a lone deployment
// file gets the hint to pass it with -config.
func (p *program) extraArgs(cmd string, args []string) int {
	if len(args) == 1 && (strings.HasSuffix(args[0], ".yaml") || strings.HasSuffix(args[0], ".yml")) {
		fmt.Fprintf(p.stderr, errConfigAsArg, cmd, args[0], cmd, args[0])
		return exitUsage
	}
	fmt.Fprintf(p.stderr, errExtraArgs, cmd, args)
	return exitUsage
}

// configError prints a deployment file's problems, one per line, each
// after "planhost CMD: ".
func (p *program) configError(cmd string, err error) int {
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintf(p.stderr, errPrefix, cmd, line)
	}
	return exitUsage
}
