// Package review compares two rendered Flux graphs and decides what Flux will do wrong
// when it reconciles the change. It knows nothing of git, HTTP or forges: it takes two
// render.Graph values and returns a Report; the rules live in review/rules, one per file.
// The rule severities and ignores of .tiergate.yaml are applied inside Review, before any
// count, so the CLI, the server and every format judge the same findings.
package review
