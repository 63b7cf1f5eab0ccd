package cmd

import (
	"encoding/json"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// txResultOutput is the output of a tx command that broadcasts in sync
// mode. The SDK's BroadcastTx, where every tx command ends, prints the
// node's answer to the command's output, in one write in the --output
// format, and returns. That write is the one step after the broadcast this
// CLI can reach: each command rebuilds its RPC client from --node, so a
// wrapped client would not last, and a codec whose MarshalJSON takes the
// message fails go vet. So the output reads each write: the node's answer
// to a broadcast (a tx response without a height) goes to the command's
// txWait, and what that returns is written in its place, in the same
// format. Every other write (the tx shown for confirmation, the newline
// after JSON) passes through.
type txResultOutput struct {
	w    io.Writer
	cdc  codec.Codec
	yaml bool // --output text, which the SDK writes as YAML
	wait *txWait
}

// Write implements io.Writer.
func (o *txResultOutput) Write(p []byte) (int, error) {
	res, ok := o.broadcastAnswer(p)
	if !ok {
		return o.w.Write(p)
	}
	out, err := o.cdc.MarshalJSON(o.wait.result(res))
	if err == nil && o.yaml {
		out, err = yaml.JSONToYAML(out)
	}
	if err != nil {
		return 0, err
	}
	if _, err := o.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// broadcastAnswer reads p as the node's answer to a broadcast, if it is one.
func (o *txResultOutput) broadcastAnswer(p []byte) (*sdk.TxResponse, bool) {
	bz := p
	if o.yaml {
		var err error
		if bz, err = yaml.YAMLToJSON(p); err != nil {
			return nil, false
		}
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(bz, &fields) != nil || fields["txhash"] == nil || fields["height"] == nil {
		return nil, false
	}
	var res sdk.TxResponse
	if o.cdc.UnmarshalJSON(bz, &res) != nil || res.Height != 0 {
		return nil, false
	}
	return &res, true
}
