package bindings_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
)

// TestDeposit approves and deposits twice: each deposit emits Deposited
// with the next nonce, the amount moves from the renter to the vault, and
// totalDeposited adds up.
func TestDeposit(t *testing.T) {
	e := newEnv(t, 4)
	r0, r1 := e.renters[0], e.renters[1]
	recipient := e.providers[2].addr // an appchain account, by its 20 bytes

	rcpt := e.deposit(r0, usdc(250), recipient)
	require.Len(t, rcpt.Logs, 2, "the token's Transfer and the vault's Deposited")
	ev, err := e.vault.UnpackDepositedEvent(rcpt.Logs[1])
	require.NoError(t, err)
	require.Equal(t, uint64(1), ev.Nonce)
	require.Equal(t, r0.addr, ev.From)
	require.Equal(t, recipient, ev.Recipient)
	require.Equal(t, usdc(250), ev.Amount)

	rcpt = e.deposit(r1, big.NewInt(1), r1.addr)
	ev, err = e.vault.UnpackDepositedEvent(rcpt.Logs[1])
	require.NoError(t, err)
	require.Equal(t, uint64(2), ev.Nonce)
	require.Equal(t, big.NewInt(1), ev.Amount)

	nonce, err := e.vault.UnpackDepositNonce(e.view(e.vault.PackDepositNonce()))
	require.NoError(t, err)
	require.Equal(t, uint64(2), nonce)
	require.Equal(t, new(big.Int).Add(usdc(250), big.NewInt(1)), e.totalDeposited())
	require.Equal(t, new(big.Int).Add(usdc(250), big.NewInt(1)), e.balance(e.vaultAddr))
	require.Equal(t, usdc(750), e.balance(r0.addr))
	require.Equal(t, new(big.Int).Sub(usdc(1000), big.NewInt(1)), e.balance(r1.addr))

	// The events replay in nonce order from the chain's logs.
	it, err := bind.FilterEvents(e.vaultC, &bind.FilterOpts{Start: 0}, e.vault.UnpackDepositedEvent)
	require.NoError(t, err)
	var nonces []uint64
	for it.Next() {
		nonces = append(nonces, it.Value().Nonce)
	}
	require.NoError(t, it.Error())
	require.Equal(t, []uint64{1, 2}, nonces)
	e.checkSolvent()
}

// TestDepositRefusals: zero amount, zero recipient, no allowance (the
// token's own error, bubbled up by SafeERC20) and a paused vault.
func TestDepositRefusals(t *testing.T) {
	e := newEnv(t, 4)
	r := e.renters[0]
	e.expectVaultError(r, e.vault.PackDeposit(big.NewInt(0), r.addr), &bindings.SettlementVaultZeroAmount{})
	e.send(r, e.tokenC, e.token.PackApprove(e.vaultAddr, usdc(10)))
	e.expectVaultError(r, e.vault.PackDeposit(usdc(1), [20]byte{}), &bindings.SettlementVaultZeroAddress{})

	raw := e.revertData(r, e.vaultC, e.vault.PackDeposit(usdc(11), r.addr))
	got, err := e.token.UnpackError(raw)
	require.NoError(t, err)
	require.Equal(t, &bindings.TestUSDCERC20InsufficientAllowance{Spender: e.vaultAddr, Allowance: usdc(10), Needed: usdc(11)}, got)

	e.send(e.guardian, e.vaultC, e.vault.PackPause())
	e.expectVaultError(r, e.vault.PackDeposit(usdc(1), r.addr), &bindings.SettlementVaultEnforcedPause{})
	e.send(e.guardian, e.vaultC, e.vault.PackUnpause())
	e.send(r, e.vaultC, e.vault.PackDeposit(usdc(1), r.addr))
	require.Equal(t, usdc(1), e.totalDeposited())
}

// TestDepositFeeOnTransferToken: a token that takes a fee in transit is
// credited by what the vault actually received, not what was asked.
func TestDepositFeeOnTransferToken(t *testing.T) {
	e := newEnv(t, 4)
	fee := bindings.NewFeeOnTransferToken()
	feeAddr := e.deploy(bindings.FeeOnTransferTokenMetaData.Bin, nil)
	feeC := fee.Instance(e.client, feeAddr)
	vault := bindings.NewSettlementVault()
	vaultAddr := e.deploy(bindings.SettlementVaultMetaData.Bin, vault.PackConstructor(
		feeAddr, crypto.Keccak256Hash([]byte("fee vault")), e.guardian.addr, 3600, toValset(e.valset)))
	vaultC := vault.Instance(e.client, vaultAddr)

	r := e.renters[0]
	e.send(e.deployer, feeC, fee.PackMint(r.addr, usdc(100)))
	e.send(r, feeC, fee.PackApprove(vaultAddr, usdc(100)))
	rcpt := e.send(r, vaultC, vault.PackDeposit(usdc(100), r.addr))

	received := usdc(99) // 1 % burnt in transit
	var ev *bindings.SettlementVaultDeposited
	for _, l := range rcpt.Logs {
		if got, err := vault.UnpackDepositedEvent(l); err == nil {
			ev = got
		}
	}
	require.NotNil(t, ev)
	require.Equal(t, received, ev.Amount)
	total, err := bind.Call(vaultC, nil, vault.PackTotalDeposited(), vault.UnpackTotalDeposited)
	require.NoError(t, err)
	require.Equal(t, received, total)
	bal, err := bind.Call(feeC, nil, fee.PackBalanceOf(vaultAddr), fee.UnpackBalanceOf)
	require.NoError(t, err)
	require.Equal(t, received, bal)
}

// TestReentryRefused: a token that calls back into the vault during a
// deposit's transfer (to deposit again, or to claim) is stopped by the
// vault's reentrancy guard, and nothing is credited.
func TestReentryRefused(t *testing.T) {
	e := newEnv(t, 4)
	re := bindings.NewReentrantToken()
	reAddr := e.deploy(bindings.ReentrantTokenMetaData.Bin, nil)
	reC := re.Instance(e.client, reAddr)
	vault := bindings.NewSettlementVault()
	vaultAddr := e.deploy(bindings.SettlementVaultMetaData.Bin, vault.PackConstructor(
		reAddr, crypto.Keccak256Hash([]byte("reentrant vault")), e.guardian.addr, 3600, toValset(e.valset)))
	vaultC := vault.Instance(e.client, vaultAddr)

	r := e.renters[0]
	e.send(e.deployer, reC, re.PackMint(r.addr, usdc(100)))
	e.send(r, reC, re.PackApprove(vaultAddr, usdc(100)))
	for name, payload := range map[string][]byte{
		"deposit": vault.PackDeposit(usdc(1), r.addr),
		"claim":   vault.PackClaim(r.addr, usdc(1), nil),
	} {
		t.Run(name, func(t *testing.T) {
			e.send(e.deployer, reC, re.PackArm(vaultAddr, payload))
			raw := e.revertData(r, vaultC, vault.PackDeposit(usdc(10), r.addr))
			got, err := vault.UnpackError(raw)
			require.NoError(t, err)
			requireSameError(t, &bindings.SettlementVaultReentrancyGuardReentrantCall{}, got)
		})
	}
	total, err := bind.Call(vaultC, nil, vault.PackTotalDeposited(), vault.UnpackTotalDeposited)
	require.NoError(t, err)
	require.Zero(t, total.Sign())
	nonce, err := bind.Call(vaultC, nil, vault.PackDepositNonce(), vault.UnpackDepositNonce)
	require.NoError(t, err)
	require.Zero(t, nonce)
}
