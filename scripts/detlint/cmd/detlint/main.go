// Command detlint reports non-deterministic constructs in the chain's
// state-machine packages. Run it directly (detlint ./x/... ./app/...) or as
// a vet tool (go vet -vettool=$(pwd)/build/detlint ./...).
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/idlegpu/idlegpu/scripts/detlint"
)

func main() {
	singlechecker.Main(detlint.Analyzer)
}
