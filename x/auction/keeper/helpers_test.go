package keeper_test

import (
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// parseTypedEvent decodes an event emitted with EmitTypedEvent into out.
func parseTypedEvent(ev sdk.Event, out proto.Message) error {
	msg, err := sdk.ParseTypedEvent(abci.Event(ev))
	if err != nil {
		return err
	}
	bz, err := proto.Marshal(msg)
	if err != nil {
		return fmt.Errorf("re-encode %T: %w", msg, err)
	}
	return proto.Unmarshal(bz, out)
}
