// Package format writes a review.Report as JSON (the machine contract), Markdown (the PR
// comment) and SARIF 2.1.0 (code scanning).
package format
