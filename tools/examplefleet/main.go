// Command examplefleet makes the quickstart's example fleet repository: a scenario's base/
// committed on the branch main and its head/ on the branch move-pvc, on top of it, so that
// `bot review --repo DIR --base main --head move-pvc` reviews the scenario as a PR.
//
//	go run ./tools/examplefleet [--scenario testdata/scenarios/demo] DIR
//
// Run it from the tiergate checkout. DIR must not exist or be empty. The commits have a
// fixed author and time, so their hashes are the same on every machine.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	scenario := flag.String("scenario", "testdata/scenarios/demo", "scenario folder with base/ and head/")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./tools/examplefleet [--scenario DIR] DEST")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	base, head, err := Make(flag.Arg(0), *scenario)
	if err != nil {
		fmt.Fprintln(os.Stderr, "examplefleet:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: main %s (%s/base), move-pvc %s (%s/head)\n", flag.Arg(0), base, *scenario, head, *scenario)
}
