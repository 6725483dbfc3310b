package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/narwhal-compiler/narwhal/diag"
)

func init() {
	extraCommands = append(extraCommands, command{"explain",
		"explain CODE: what error CODE (NW101 ... NW900) means, a small example and its fix (docs/errors.md); no CODE: the list",
		runExplain})
}

func runExplain(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain", stderr)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		for _, e := range diag.Registry {
			fmt.Fprintf(stdout, "%s  %s\n", e.Code, e.Title)
		}
		return nil
	}
	if len(pos) > 1 {
		return diag.Errorf(diag.Usage, "want one error code, have %d (%s)", len(pos), strings.Join(pos, " "))
	}
	e, ok := diag.Lookup(pos[0])
	if !ok {
		return diag.Errorf(diag.Usage, "unknown error code %q (narwhal explain lists them)", pos[0])
	}
	_, err = io.WriteString(stdout, e.Explain(""))
	return err
}
