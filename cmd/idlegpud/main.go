// Command idlegpud is the idlegpu chain node and its command-line client.
package main

import (
	"fmt"
	"os"

	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
)

func main() {
	rootCmd := cmd.NewRootCmd()
	if err := svrcmd.Execute(rootCmd, "IDLEGPU", app.DefaultNodeHome); err != nil {
		fmt.Fprintln(rootCmd.OutOrStderr(), err)
		os.Exit(1)
	}
}
