package bindings_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// TestDeploy checks a vault starts with the given set's checkpoint (the Go
// checkpoint, to the byte), its parameters and nothing deposited or paid.
func TestDeploy(t *testing.T) {
	e := newEnv(t, 4)
	cp, err := e.vault.UnpackValsetCheckpoint(e.view(e.vault.PackValsetCheckpoint()))
	require.NoError(t, err)
	require.Equal(t, e.domain.ValsetCheckpoint(e.valset), common.Hash(cp))
	viaView, err := e.vault.UnpackCheckpointOf(e.view(e.vault.PackCheckpointOf(toValset(e.valset))))
	require.NoError(t, err)
	require.Equal(t, cp, viaView)

	nonce, err := e.vault.UnpackValsetNonce(e.view(e.vault.PackValsetNonce()))
	require.NoError(t, err)
	require.Equal(t, uint64(1), nonce)
	guardian, err := e.vault.UnpackGuardian(e.view(e.vault.PackGuardian()))
	require.NoError(t, err)
	require.Equal(t, e.guardian.addr, guardian)
	token, err := e.vault.UnpackToken(e.view(e.vault.PackToken()))
	require.NoError(t, err)
	require.Equal(t, e.tokenAddr, token)
	delay, err := e.vault.UnpackRootDelay(e.view(e.vault.PackRootDelay()))
	require.NoError(t, err)
	require.Equal(t, uint64(3600), delay)

	tag, err := e.vault.UnpackVALSETTAG(e.view(e.vault.PackVALSETTAG()))
	require.NoError(t, err)
	require.Equal(t, payout.ValsetTag, common.Hash(tag))
	tag, err = e.vault.UnpackROOTTAG(e.view(e.vault.PackROOTTAG()))
	require.NoError(t, err)
	require.Equal(t, payout.RootTag, common.Hash(tag))
	threshold, err := e.vault.UnpackPOWERTHRESHOLD(e.view(e.vault.PackPOWERTHRESHOLD()))
	require.NoError(t, err)
	require.Equal(t, payout.PowerThreshold, threshold)
	total, err := e.vault.UnpackPOWERTOTAL(e.view(e.vault.PackPOWERTOTAL()))
	require.NoError(t, err)
	require.Equal(t, payout.PowerTotal, total)

	// The Go root digest is the vault's.
	root := crypto.Keccak256Hash([]byte("root"))
	want := e.rootDigest(7, root, big.NewInt(12345))
	got, err := e.vault.UnpackRootDigest(e.view(e.vault.PackRootDigest(e.valset.Nonce, 7, root, big.NewInt(12345))))
	require.NoError(t, err)
	require.Equal(t, want, common.Hash(got))

	require.Zero(t, e.totalDeposited().Sign())
	require.Zero(t, e.totalClaimed().Sign())
	require.Equal(t, [32]byte{}, e.accepted().Root)
	require.Equal(t, [32]byte{}, e.pending(1).Root)
	require.Zero(t, e.lastProposed())
	require.Zero(t, e.cancelledThrough())

	decimals, err := bind.Call(e.tokenC, nil, e.token.PackDecimals(), e.token.UnpackDecimals)
	require.NoError(t, err)
	require.Equal(t, uint8(6), decimals)
}

// TestDeployRefusesBadValset checks the constructor's refusals, each with
// its custom error: empty, zero power, power below the threshold, and the
// other malformed sets and parameters.
func TestDeployRefusesBadValset(t *testing.T) {
	e := newEnv(t, 4)
	vid := crypto.Keccak256Hash([]byte("another vault"))
	good := e.valset
	addrs := good.Validators
	mk := func(validators []common.Address, powers ...uint64) bindings.SettlementVaultValset {
		return bindings.SettlementVaultValset{Validators: validators, Powers: powers, Nonce: 1}
	}
	many := make([]common.Address, payout.MaxValidators+1)
	manyPowers := make([]uint64, len(many))
	for i := range many {
		many[i] = common.BigToAddress(big.NewInt(int64(i + 1)))
		manyPowers[i] = 1
	}
	q := payout.PowerTotal / 4
	cases := []struct {
		name     string
		token    common.Address
		guardian common.Address
		delay    uint64
		valset   bindings.SettlementVaultValset
		want     any
	}{
		{"empty", e.tokenAddr, e.guardian.addr, 60, mk(nil), &bindings.SettlementVaultEmptyValset{}},
		{"zero power", e.tokenAddr, e.guardian.addr, 60, mk(addrs, q, 0, q, q), &bindings.SettlementVaultZeroPower{Index: big.NewInt(1)}},
		{"power below threshold", e.tokenAddr, e.guardian.addr, 60, mk(addrs[:3], q, q, 2*q/3),
			&bindings.SettlementVaultPowerBelowThreshold{Power: new(big.Int).SetUint64(2*q + 2*q/3)}},
		{"power exactly the threshold", e.tokenAddr, e.guardian.addr, 60, mk(addrs[:1], payout.PowerThreshold),
			&bindings.SettlementVaultPowerBelowThreshold{Power: new(big.Int).SetUint64(payout.PowerThreshold)}},
		{"power above the total", e.tokenAddr, e.guardian.addr, 60, mk(addrs[:2], q*3, q+1),
			&bindings.SettlementVaultPowerAboveTotal{Power: new(big.Int).SetUint64(4*q + 1)}},
		{"unsorted", e.tokenAddr, e.guardian.addr, 60, mk([]common.Address{addrs[1], addrs[0]}, 2*q, 2*q),
			&bindings.SettlementVaultValidatorsNotSorted{Index: big.NewInt(1)}},
		{"duplicate validator", e.tokenAddr, e.guardian.addr, 60, mk([]common.Address{addrs[0], addrs[0]}, 2*q, 2*q),
			&bindings.SettlementVaultValidatorsNotSorted{Index: big.NewInt(1)}},
		{"zero validator", e.tokenAddr, e.guardian.addr, 60, mk([]common.Address{{}, addrs[0]}, 2*q, 2*q), &bindings.SettlementVaultZeroAddress{}},
		{"length mismatch", e.tokenAddr, e.guardian.addr, 60, mk(addrs, q, q, q),
			&bindings.SettlementVaultValsetLengthMismatch{Validators: big.NewInt(4), Powers: big.NewInt(3)}},
		{"too many", e.tokenAddr, e.guardian.addr, 60, mk(many, manyPowers...),
			&bindings.SettlementVaultTooManyValidators{Count: big.NewInt(int64(len(many)))}},
		{"zero token", common.Address{}, e.guardian.addr, 60, toValset(good), &bindings.SettlementVaultZeroAddress{}},
		{"zero guardian", e.tokenAddr, common.Address{}, 60, toValset(good), &bindings.SettlementVaultZeroAddress{}},
		{"zero delay", e.tokenAddr, e.guardian.addr, 0, toValset(good), &bindings.SettlementVaultZeroDelay{}},
		{"delay over 30 days", e.tokenAddr, e.guardian.addr, 30*24*3600 + 1, toValset(good), &bindings.SettlementVaultDelayTooLong{Delay: 30*24*3600 + 1}},
	}
	bin := common.FromHex(bindings.SettlementVaultMetaData.Bin)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			input := e.vault.PackConstructor(tc.token, vid, tc.guardian, tc.delay, tc.valset)
			_, _, err := bind.DeployContract(e.deployer.opts, bin, e.client, input)
			require.Error(t, err)
			raw := revertDataOf(t, err)
			got, err := e.vault.UnpackError(raw)
			require.NoError(t, err)
			requireSameError(t, tc.want, got)
			// The Go rules agree with the vault's.
			if tc.token != (common.Address{}) && tc.guardian != (common.Address{}) && tc.delay != 0 && tc.delay <= 30*24*3600 {
				vs := payout.Valset{Validators: tc.valset.Validators, Powers: tc.valset.Powers, Nonce: 1}
				require.Error(t, vs.Validate())
			}
		})
	}
}
