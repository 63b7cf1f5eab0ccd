package types_test

import (
	"bytes"
	"strings"
	"testing"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
	"github.com/idlegpu/idlegpu/x/internal/msgtest"
)

// TestValidateBasic: every stateless rule the msg server checks refuses its
// field before any state is read, with the module's error and the text a
// client sees; a well-formed message of every type passes.
func TestValidateBasic(t *testing.T) {
	orch := sdk.AccAddress(bytes.Repeat([]byte{1}, 20)).String()
	const evm = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	const txHash = "0xAB00000000000000000000000000000000000000000000000000000000000001"
	sig := make([]byte, 65)
	attest := func(edit func(*types.MsgAttestDeposit)) *types.MsgAttestDeposit {
		m := &types.MsgAttestDeposit{Orchestrator: orch, Nonce: 1, EvmSender: evm, EvmRecipient: evm,
			Amount: math.NewInt(25_000_000), EvmBlockNumber: 7, EvmTxHash: txHash, EvmBlockHash: txHash}
		edit(m)
		return m
	}
	evidence := func(edit func(*types.MsgSubmitRootEvidence)) *types.MsgSubmitRootEvidence {
		m := &types.MsgSubmitRootEvidence{Submitter: orch, ValsetNonce: 1, Epoch: 1, Root: txHash,
			TotalCumulative: math.NewInt(25_000_000), Signature: sig}
		edit(m)
		return m
	}
	withdraw := func(edit func(*types.MsgWithdrawToEvm)) *types.MsgWithdrawToEvm {
		m := &types.MsgWithdrawToEvm{Sender: orch, EvmRecipient: evm, Amount: sdk.NewInt64Coin("uusdc", 25_000_000)}
		edit(m)
		return m
	}
	badParams := types.DefaultParams()
	badParams.Denom = "x"
	badBech32 := `decoding bech32 failed: invalid bech32 string length 3`

	msgtest.RunValidateBasic(t, msgtest.Cases{
		{"register signer", &types.MsgRegisterEvmSigner{Operator: orch, Orchestrator: orch, EvmAddress: evm, Proof: sig}, nil, ""},
		{"register signer: orchestrator", &types.MsgRegisterEvmSigner{Operator: orch, Orchestrator: "bad", EvmAddress: evm, Proof: sig},
			types.ErrInvalidAddress, "orchestrator: " + badBech32 + ": invalid address"},
		{"register signer: evm address", &types.MsgRegisterEvmSigner{Operator: orch, Orchestrator: orch, EvmAddress: strings.ToLower(evm[:41]), Proof: sig},
			types.ErrInvalidEvmAddress, `"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae": want 0x and 40 hex digits: invalid EVM address`},
		{"register signer: proof", &types.MsgRegisterEvmSigner{Operator: orch, Orchestrator: orch, EvmAddress: evm, Proof: sig[:64]},
			types.ErrBadSignature, "64 bytes, want 65: signature is not the registered signer's"},

		{"attest", attest(func(*types.MsgAttestDeposit) {}), nil, ""},
		{"attest: orchestrator", attest(func(m *types.MsgAttestDeposit) { m.Orchestrator = "" }),
			types.ErrInvalidAddress, "orchestrator: empty address string is not allowed: invalid address"},
		{"attest: sender", attest(func(m *types.MsgAttestDeposit) { m.EvmSender = "0x" + strings.Repeat("0", 40) }),
			types.ErrInvalidClaim, "evm_sender: zero address: invalid EVM address: invalid deposit claim"},
		{"attest: nonce", attest(func(m *types.MsgAttestDeposit) { m.Nonce = 0 }),
			types.ErrInvalidClaim, "nonce starts at 1: invalid deposit claim"},
		{"attest: amount", attest(func(m *types.MsgAttestDeposit) { m.Amount = math.ZeroInt() }),
			types.ErrInvalidClaim, "amount must be a positive uint256: invalid deposit claim"},
		{"attest: block", attest(func(m *types.MsgAttestDeposit) { m.EvmBlockNumber = 0 }),
			types.ErrInvalidClaim, "evm_block_number must be positive: invalid deposit claim"},

		{"attest: block hash", attest(func(m *types.MsgAttestDeposit) { m.EvmBlockHash = "0x01" }),
			types.ErrInvalidClaim, `evm_block_hash: "0x01": want 0x and 64 hex digits: invalid params: invalid deposit claim`},

		{"revoke", &types.MsgRevokeAttestation{Orchestrator: orch, Nonce: 1}, nil, ""},
		{"revoke: nonce", &types.MsgRevokeAttestation{Orchestrator: orch},
			types.ErrInvalidClaim, "nonce starts at 1: invalid deposit claim"},
		{"revoke: orchestrator", &types.MsgRevokeAttestation{Orchestrator: "bad", Nonce: 1},
			types.ErrInvalidAddress, "orchestrator: " + badBech32 + ": invalid address"},

		{"root evidence", evidence(func(*types.MsgSubmitRootEvidence) {}), nil, ""},
		{"root evidence: zero total", evidence(func(m *types.MsgSubmitRootEvidence) { m.TotalCumulative = math.ZeroInt() }), nil, ""},
		{"root evidence: submitter", evidence(func(m *types.MsgSubmitRootEvidence) { m.Submitter = "bad" }),
			types.ErrInvalidAddress, "submitter: " + badBech32 + ": invalid address"},
		{"root evidence: epoch", evidence(func(m *types.MsgSubmitRootEvidence) { m.Epoch = 0 }),
			types.ErrNotProvable, "epoch 0, valset 1: both start at 1: evidence does not prove an equivocation"},
		{"root evidence: root", evidence(func(m *types.MsgSubmitRootEvidence) { m.Root = "0x" }),
			types.ErrNotProvable, `root: "0x": want 0x and 64 hex digits: invalid params: evidence does not prove an equivocation`},
		{"root evidence: total", evidence(func(m *types.MsgSubmitRootEvidence) { m.TotalCumulative = math.NewInt(-1) }),
			types.ErrNotProvable, "total_cumulative must be a uint256: evidence does not prove an equivocation"},
		{"root evidence: signature", evidence(func(m *types.MsgSubmitRootEvidence) { m.Signature = sig[:64] }),
			types.ErrBadSignature, "64 bytes, want 65: signature is not the registered signer's"},

		{"valset evidence", &types.MsgSubmitValsetEvidence{Submitter: orch, Nonce: 1, Validators: []string{evm}, Powers: []uint64{1}, Signature: sig}, nil, ""},
		{"valset evidence: nonce", &types.MsgSubmitValsetEvidence{Submitter: orch, Validators: []string{evm}, Powers: []uint64{1}, Signature: sig},
			types.ErrNotProvable, "valset nonce starts at 1: evidence does not prove an equivocation"},
		{"valset evidence: powers", &types.MsgSubmitValsetEvidence{Submitter: orch, Nonce: 1, Validators: []string{evm}, Signature: sig},
			types.ErrNotProvable, "1 validators, 0 powers: want one power each, at most 256: evidence does not prove an equivocation"},
		{"valset evidence: validator", &types.MsgSubmitValsetEvidence{Submitter: orch, Nonce: 1, Validators: []string{"0x12"}, Powers: []uint64{1}, Signature: sig},
			types.ErrNotProvable, `validator: "0x12": want 0x and 40 hex digits: invalid EVM address: evidence does not prove an equivocation`},
		{"valset evidence: signature", &types.MsgSubmitValsetEvidence{Submitter: orch, Nonce: 1, Validators: []string{evm}, Powers: []uint64{1}},
			types.ErrBadSignature, "0 bytes, want 65: signature is not the registered signer's"},

		{"confirm valset", &types.MsgConfirmValset{Orchestrator: orch, Nonce: 1, Signature: sig}, nil, ""},
		{"confirm valset: signature", &types.MsgConfirmValset{Orchestrator: orch, Nonce: 1},
			types.ErrBadSignature, "0 bytes, want 65: signature is not the registered signer's"},
		{"confirm root", &types.MsgConfirmRoot{Orchestrator: orch, Epoch: 1, Signature: sig}, nil, ""},
		{"confirm root: orchestrator", &types.MsgConfirmRoot{Orchestrator: "bad", Epoch: 1, Signature: sig},
			types.ErrInvalidAddress, "orchestrator: " + badBech32 + ": invalid address"},

		{"withdraw", withdraw(func(*types.MsgWithdrawToEvm) {}), nil, ""},
		{"withdraw: sender", withdraw(func(m *types.MsgWithdrawToEvm) { m.Sender = "bad" }),
			types.ErrInvalidAddress, "sender: " + badBech32 + ": invalid address"},
		{"withdraw: recipient checksum", withdraw(func(m *types.MsgWithdrawToEvm) { m.EvmRecipient = "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" }),
			types.ErrInvalidEvmAddress, `"0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed": bad EIP-55 checksum (want ` + evm + `): invalid EVM address`},
		{"withdraw: zero", withdraw(func(m *types.MsgWithdrawToEvm) { m.Amount = sdk.NewInt64Coin("uusdc", 0) }),
			types.ErrInvalidAmount, "withdraw 0uusdc: want a positive amount of a valid denom: invalid amount"},
		{"withdraw: hex read as zero", withdraw(func(m *types.MsgWithdrawToEvm) { m.Amount = sdk.Coin{Denom: "x10uusdc", Amount: math.ZeroInt()} }),
			types.ErrInvalidAmount, "withdraw 0x10uusdc: want a positive amount of a valid denom: invalid amount"},

		{"update params", &types.MsgUpdateParams{Authority: orch, Params: types.DefaultParams()}, nil, ""},
		{"update params: authority", &types.MsgUpdateParams{Authority: "bad", Params: types.DefaultParams()},
			types.ErrInvalidAuthority, `authority "bad": ` + badBech32 + `: signer is not the module authority`},
		{"update params: params", &types.MsgUpdateParams{Authority: orch, Params: badParams},
			types.ErrInvalidParams, "denom: invalid denom: x: invalid params"},
	})
}
