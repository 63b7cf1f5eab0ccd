package wallet

import (
	gogoproto "github.com/cosmos/gogoproto/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	errorsmod "cosmossdk.io/errors"

	"github.com/cosmos/cosmos-sdk/codec"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/canon"
)

// UnmarshalSignedJSON decodes a wallet-signed JobBid, CancelJobAuth,
// CloseLeaseAuth or WithdrawAuth from the chain's JSON (what sign-job prints and the web
// app hands back with the signature) into msg, after checking that every
// number in it is plain decimal (app/canon: JSONChecker). The codec reads
// math.Int text with Go's base-0 rules, so without the check a bid whose
// JSON says "max_price":{"amount":"001000000"} would be submitted for
// 262144 while JavaScript and the person read 1000000. name is the JSON
// member the message came in ("bid"), which begins each field path; every
// refusal is types.ErrInvalidSignedMsg.
func UnmarshalSignedJSON(cdc codec.Codec, name string, bz []byte, msg gogoproto.Message) error {
	reg := cdc.InterfaceRegistry()
	d, err := reg.FindDescriptorByName(protoreflect.FullName(gogoproto.MessageName(msg)))
	if err != nil {
		return errorsmod.Wrapf(types.ErrInvalidSignedMsg, "%s: %v", name, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return errorsmod.Wrapf(types.ErrInvalidSignedMsg, "%s: %s is not a message", name, d.FullName())
	}
	if err := canon.NewJSONChecker(reg).Check(bz, md, name); err != nil {
		return errorsmod.Wrap(types.ErrInvalidSignedMsg, err.Error())
	}
	if err := cdc.UnmarshalJSON(bz, msg); err != nil {
		return errorsmod.Wrapf(types.ErrInvalidSignedMsg, "%s: %v", name, err)
	}
	return nil
}
