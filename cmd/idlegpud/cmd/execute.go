package cmd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	cmtcli "github.com/cometbft/cometbft/libs/cli"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cosmos/cosmos-sdk/client/flags"
	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"

	"github.com/idlegpu/idlegpu/app"
)

// EnvPrefix prefixes the environment variables that set idlegpud's flags.
const EnvPrefix = "IDLEGPU"

// usageError marks an error in how the command was called (argument count,
// unknown flag): only those are worth the command's usage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// Execute runs the root command on args and returns the exit status: 0,
// an error's own exit status (see exitCode), or 1. An error prints as one
// line, "Error: <message>", on the command's stderr; a usage error adds the
// command's usage after it.
func Execute(rootCmd *cobra.Command, args []string) int {
	// What svrcmd.Execute does, so tests run the same command tree.
	ctx := svrcmd.CreateExecuteContext(context.Background())
	pf := rootCmd.PersistentFlags()
	pf.String(flags.FlagLogLevel, zerolog.InfoLevel.String(), "The logging level (trace|debug|info|warn|error|fatal|panic|disabled or '*:<level>,<key>:<level>')")
	pf.String(flags.FlagLogFormat, "plain", "The logging format (json|plain)")
	pf.Bool(flags.FlagLogNoColor, false, "Disable colored logs")
	pf.String(flags.FlagVerboseLogLevel, zerolog.DebugLevel.String(), "The logging level (trace|debug|info|warn|error|fatal|panic|disabled|none) to use when performing operations which require extra verbosity (such as upgrades)")
	cmtcli.PrepareBaseCmd(rootCmd, EnvPrefix, app.DefaultNodeHome)

	rootCmd.SilenceErrors = true
	rootCmd.SilenceUsage = true
	rootCmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if strings.HasPrefix(err.Error(), "invalid argument ") {
			return err // a bad value, not a misuse: Message names the flag
		}
		return usageError{err}
	})
	markArgErrors(rootCmd)
	rootCmd.SetArgs(negativesAsArgs(rootCmd, args))

	cmd, err := rootCmd.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	if cmd == nil {
		cmd = rootCmd
	}
	err = passphraseHint(cmd, err)
	w := rootCmd.ErrOrStderr()
	fmt.Fprintln(w, "Error: "+Message(cmd, err))
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		fmt.Fprint(w, "\n"+cmd.UsageString())
	}
	return exitCode(err)
}

// exitCode is the status err exits with: the one an error in its chain
// carries, through cometbft's cli.ExitCoder (the interface the executor
// that cmtcli.PrepareBaseCmd returns honours; this SDK has no
// server.ErrorCode), else 1. A carried 0 is 1 too: an error is not success.
func exitCode(err error) int {
	var ec cmtcli.ExitCoder
	if errors.As(err, &ec) {
		if code := ec.ExitCode(); code > 0 {
			return code
		}
	}
	return 1
}

// markArgErrors makes every command's argument-count error a usage error.
func markArgErrors(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markArgErrors(sub)
	}
}

var (
	// errorsmod's %v appends where the error was made: " [path/file.go:12]".
	sourcePathRe = regexp.MustCompile(` ?\[[^\[\]]*\.go:\d+\]`)
	// pflag's error for a bad value; autocli parses positional arguments as
	// flags named by their index.
	badValueRe = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([^"]+)" flag: (.*)$`)
	negativeRe = regexp.MustCompile(`^-[0-9]`)
)

// Message is the one line an error prints as: no source paths, one rpc
// error where the node's query path wrapped it twice (rpcErrorOnce), a
// failed simulation said as such (simulationFailure), and a bad value
// named by its flag, or by its positional argument's name in the
// command's usage.
func Message(cmd *cobra.Command, err error) string {
	msg := simulationFailure(rpcErrorOnce(sourcePathRe.ReplaceAllString(err.Error(), "")))
	m := badValueRe.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value, cause := m[1], m[3]
	name := "--" + m[2]
	if i, err := strconv.Atoi(m[2]); err == nil {
		name = argName(cmd, i)
	}
	switch {
	case strings.Contains(cause, "strconv.ParseUint") && negativeRe.MatchString(value):
		return fmt.Sprintf("%s: %q must be a non-negative integer", name, value)
	case strings.Contains(cause, "strconv.Parse") && strings.Contains(cause, "out of range"):
		return fmt.Sprintf("%s: %q is too large", name, value)
	case strings.Contains(cause, "strconv.Parse"):
		return fmt.Sprintf("%s: %q is not a number", name, value)
	case negativeRe.MatchString(value):
		return fmt.Sprintf("%s: %q must be positive", name, value)
	case strings.HasPrefix(cause, strconv.Quote(value)+" "): // a precheck.ValueError names it
		return fmt.Sprintf("%s: %s", name, cause)
	}
	return fmt.Sprintf("%s: %q: %s", name, value, cause)
}

// argName is the i-th positional argument's name in cmd's Use line
// ("close-lease <lease-id>"), or "argument i+1" where it names none.
func argName(cmd *cobra.Command, i int) string {
	var names []string
	for _, f := range strings.Fields(cmd.Use)[1:] {
		if f == "[flags]" {
			continue
		}
		names = append(names, strings.Trim(f, "<>[].|"))
	}
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	return fmt.Sprintf("argument %d", i+1)
}

// negativesAsArgs moves a negative number written where an argument goes
// ("bond -1ugpu", "close-lease -1") after a "--", so it reaches the command,
// which says what is wrong with it, instead of reading as a shorthand flag.
func negativesAsArgs(root *cobra.Command, args []string) []string {
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root || cmd.DisableFlagParsing {
		return args
	}
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.AddFlagSet(cmd.Flags())
	fs.AddFlagSet(cmd.InheritedFlags())
	var opts, positional []string
	moved := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			positional = append(positional, rest[i+1:]...)
			i = len(rest)
		case negativeRe.MatchString(a) && fs.ShorthandLookup(a[1:2]) == nil:
			positional = append(positional, a)
			moved = true
		case strings.HasPrefix(a, "--"):
			opts = append(opts, a)
			if f := fs.Lookup(strings.TrimPrefix(a, "--")); f != nil && f.NoOptDefVal == "" && i+1 < len(rest) {
				i++
				opts = append(opts, rest[i])
			}
		case strings.HasPrefix(a, "-") && len(a) == 2:
			opts = append(opts, a)
			if f := fs.ShorthandLookup(a[1:]); f != nil && f.NoOptDefVal == "" && i+1 < len(rest) {
				i++
				opts = append(opts, rest[i])
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			opts = append(opts, a)
		default:
			positional = append(positional, a)
		}
	}
	if !moved {
		return args
	}
	path := strings.Fields(cmd.CommandPath())[1:]
	out := append(append(append(path, opts...), "--"), positional...)
	return out
}
