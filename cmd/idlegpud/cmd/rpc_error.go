package cmd

import (
	"regexp"
	"strings"
)

// doubleRPCRe is a gRPC status error whose description is another. A query
// through the node's ABCI path fails twice over: the node's query server
// returns a status error, baseapp wraps its text in an SDK error (and
// appends that error's own message), and the client (client.Context's
// Invoke, which every autocli and hand-written query and the tx commands'
// account lookup and simulation use) makes a status error of the whole.
var doubleRPCRe = regexp.MustCompile(`rpc error: code = \w+ desc = rpc error: code = (\w+) desc = (.*)$`)

// baseappSuffix is what baseapp appends to a status error of each code: the
// message of the SDK error it wraps it in (baseapp.gRPCErrorToSDKError).
func baseappSuffix(code string) string {
	switch code {
	case "NotFound":
		return ": key not found"
	case "InvalidArgument", "FailedPrecondition":
		return ": invalid request"
	case "Unauthenticated":
		return ": unauthorized"
	default:
		return ": unknown request"
	}
}

// rpcErrorOnce rewrites a doubly wrapped status error in msg as the node's
// own: "rpc error: code = NotFound desc = offer 999: offer not found".
func rpcErrorOnce(msg string) string {
	for {
		m := doubleRPCRe.FindStringSubmatchIndex(msg)
		if m == nil {
			return msg
		}
		code, desc := msg[m[2]:m[3]], msg[m[4]:m[5]]
		msg = msg[:m[0]] + "rpc error: code = " + code + " desc = " + strings.TrimSuffix(desc, baseappSuffix(code))
	}
}

// simulationRe is a tx's simulation failing, as rpcErrorOnce leaves it:
// the SDK's tx service appends the gas the failed run used.
var simulationRe = regexp.MustCompile(`^rpc error: code = Unknown desc = (.*) with gas used: '\d+'$`)

// simulationFailure rewrites a failed simulation in msg as what it means
// to the person who ran the tx command: the tx's messages fail on the
// chain as it is, so the command sent nothing and no fee was paid. Every
// tx command without --gas is simulated first (setTxDefaults), so this is
// how a tx whose messages fail usually ends.
func simulationFailure(msg string) string {
	if m := simulationRe.FindStringSubmatch(msg); m != nil {
		return "the tx fails in simulation, so nothing was sent: " + m[1]
	}
	return msg
}
