package ante

import (
	"errors"

	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"

	"github.com/idlegpu/idlegpu/x/base/canon"
)

// txDesc is the message a JSON tx is (what the SDK's TxJSONDecoder reads).
var txDesc = (&txv1beta1.Tx{}).ProtoReflect().Descriptor()

// CheckTxJSON is CheckTxBytes for a tx in its JSON form, as `tx sign`,
// `tx broadcast` and `tx encode` read it. The SDK's JSON decoder reads
// amounts with Go's base-0 rules and the tx is then encoded with the
// chain's spelling, so the bytes CheckTxBytes sees are always canonical:
// "00001234567" in the file a person reads is signed as 342391. It returns
// ErrNonCanonicalNumber naming the field by its JSON path
// (body.messages[0].amount[0].amount), or sdkerrors.ErrTxDecode if bz is
// not JSON or an Any names a type the resolver does not know.
func (c *NumberChecker) CheckTxJSON(bz []byte) error {
	err := c.json.Check(bz, txDesc, "")
	var num *canon.NumberError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &num):
		return errorsmod.Wrap(ErrNonCanonicalNumber, num.Error())
	default:
		return errorsmod.Wrap(sdkerrors.ErrTxDecode, err.Error())
	}
}

// JSONTxDecoder returns decode (a TxConfig's TxJSONDecoder) preceded by
// CheckTxJSON: a tx it decodes means what its JSON says to a person.
func (c *NumberChecker) JSONTxDecoder(decode sdk.TxDecoder) sdk.TxDecoder {
	return func(bz []byte) (sdk.Tx, error) {
		if err := c.CheckTxJSON(bz); err != nil {
			return nil, err
		}
		return decode(bz)
	}
}
