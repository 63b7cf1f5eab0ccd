package types

import (
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/msgservice"
)

// RegisterInterfaces registers the module's messages so transactions and gov
// proposals can carry them.
func RegisterInterfaces(registry codectypes.InterfaceRegistry) {
	registry.RegisterImplementations((*sdk.Msg)(nil),
		&MsgPostJob{},
		&MsgCancelJob{},
		&MsgPlaceBid{},
		&MsgWithdrawBid{},
		&MsgStartLease{},
		&MsgCloseLease{},
		&MsgPreemptLease{},
		&MsgSubmitSignedJob{},
		&MsgSubmitSignedCancel{},
		&MsgSubmitSignedClose{},
		&MsgSubmitSignedWithdraw{},
		&MsgUpdateParams{},
	)
	msgservice.RegisterMsgServiceDesc(registry, &_Msg_serviceDesc)
}
