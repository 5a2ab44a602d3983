package format

import "github.com/tiergate/tiergate/internal/review/rules"

var (
	nilMoves    = []rules.Move{}
	nilFindings = []rules.Finding{}
)
