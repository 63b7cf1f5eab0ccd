package ante_test

import (
	"math/rand" //detlint:allow test helper, not state machine: the SDK signer takes a rand only to pick a memo
	"strconv"
	"strings"
	"testing"

	gogoproto "github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"
	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
)

// resolver is the file resolver the app's tx decoder uses.
func resolver(a *app.App) protodesc.Resolver {
	return a.TxConfig().SigningContext().FileResolver()
}

// encodeWith encodes msg with the string field at path (a.b[1].c) set to
// text, as a client that bypasses math.Int would: the text goes on the wire
// exactly as given, which gogoproto's generated code cannot produce.
func encodeWith(t testing.TB, r protodesc.Resolver, msg gogoproto.Message, path, text string) []byte {
	t.Helper()
	bz, err := gogoproto.Marshal(msg)
	require.NoError(t, err)
	d, err := r.FindDescriptorByName(protoreflect.FullName(gogoproto.MessageName(msg)))
	require.NoError(t, err)
	dyn := dynamicpb.NewMessage(d.(protoreflect.MessageDescriptor))
	require.NoError(t, proto.Unmarshal(bz, dyn))
	setString(t, dyn, path, text)
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(dyn)
	require.NoError(t, err)
	return out
}

// packWith is encodeWith in an Any.
func packWith(t testing.TB, r protodesc.Resolver, msg gogoproto.Message, path, text string) *codectypes.Any {
	t.Helper()
	return &codectypes.Any{TypeUrl: "/" + gogoproto.MessageName(msg), Value: encodeWith(t, r, msg, path, text)}
}

func setString(t testing.TB, m protoreflect.Message, path, text string) {
	t.Helper()
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		name, index := seg, -1
		if j := strings.IndexByte(seg, '['); j >= 0 {
			var err error
			name = seg[:j]
			index, err = strconv.Atoi(strings.TrimSuffix(seg[j+1:], "]"))
			require.NoError(t, err)
		}
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
		require.NotNil(t, fd, "%s has no field %s", m.Descriptor().FullName(), name)
		last := i == len(segs)-1
		switch {
		case last && index < 0:
			m.Set(fd, protoreflect.ValueOfString(text))
		case last:
			m.Mutable(fd).List().Set(index, protoreflect.ValueOfString(text))
		case index >= 0:
			m = m.Mutable(fd).List().Get(index).Message()
		default:
			m = m.Mutable(fd).Message()
		}
	}
}

// rawTx is a TxRaw of msgs and authInfo, unsigned: what the checker reads.
func rawTx(t testing.TB, authInfo []byte, msgs ...*codectypes.Any) []byte {
	t.Helper()
	body, err := (&txtypes.TxBody{Messages: msgs}).Marshal()
	require.NoError(t, err)
	bz, err := (&txtypes.TxRaw{BodyBytes: body, AuthInfoBytes: authInfo}).Marshal()
	require.NoError(t, err)
	return bz
}

// signedTx is a tx the SDK would build for template, signed by signer
// (SIGN_MODE_DIRECT, its current account number and sequence), whose one
// message is msg instead: the signature covers msg's bytes as they are.
func signedTx(t testing.TB, a *app.App, signer apptesting.Account, template sdk.Msg, msg *codectypes.Any) []byte {
	t.Helper()
	acc := a.AccountKeeper.GetAccount(a.NewContext(true), signer.Address)
	require.NotNil(t, acc)
	tx, err := simtestutil.GenSignedMockTx(rand.New(rand.NewSource(1)), a.TxConfig(), []sdk.Msg{template},
		apptesting.DefaultFee, apptesting.DefaultGas, apptesting.ChainID,
		[]uint64{acc.GetAccountNumber()}, []uint64{acc.GetSequence()}, signer.PrivKey)
	require.NoError(t, err)
	bz, err := a.TxConfig().TxEncoder()(tx)
	require.NoError(t, err)

	var raw txtypes.TxRaw
	require.NoError(t, raw.Unmarshal(bz))
	var body txtypes.TxBody
	require.NoError(t, body.Unmarshal(raw.BodyBytes))
	body.Messages = []*codectypes.Any{msg}
	raw.BodyBytes, err = body.Marshal()
	require.NoError(t, err)
	doc, err := (&txtypes.SignDoc{
		BodyBytes: raw.BodyBytes, AuthInfoBytes: raw.AuthInfoBytes,
		ChainId: apptesting.ChainID, AccountNumber: acc.GetAccountNumber(),
	}).Marshal()
	require.NoError(t, err)
	sig, err := signer.PrivKey.Sign(doc)
	require.NoError(t, err)
	raw.Signatures = [][]byte{sig}
	bz, err = raw.Marshal()
	require.NoError(t, err)
	return bz
}
