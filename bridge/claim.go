package bridge

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/contracts/payout"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// claimCmd pays an account what the vault's accepted root holds for it
// beyond what it was already paid. Anyone may send the claim (the tokens
// go to the account), so a provider without EVM gas can ask anyone.
func claimCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "claim <evm address>",
		Short: "Claim an account's payout from the vault under its accepted root",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			account, err := bridgetypes.ParseEvmAddress(args[0])
			if err != nil {
				return err
			}
			key, err := ethKey(cmd)
			if err != nil {
				return err
			}
			qc, err := queryContext(cmd)
			if err != nil {
				return err
			}
			q := queryClient(qc)
			p, err := loadParams(ctx, q)
			if err != nil {
				return err
			}
			e, err := dialEVM(ctx, cmd, p.domain.Vault)
			if err != nil {
				return err
			}
			defer e.client.Close()
			acc, err := call(ctx, e, e.vault.PackAcceptedRoot(), e.vault.UnpackAcceptedRoot)
			if err != nil {
				return fmt.Errorf("vault acceptedRoot: %w", err)
			}
			if acc.Epoch == 0 {
				return fmt.Errorf("nothing to claim: the vault %s has no accepted root yet", p.domain.Vault)
			}
			pr, err := q.Proof(ctx, &bridgetypes.QueryProofRequest{Epoch: acc.Epoch, EvmAddress: account.Hex()})
			if err != nil {
				return fmt.Errorf("nothing to claim for %s under the accepted root (epoch %d): %w", account, acc.Epoch, err)
			}
			cumulative, ok := new(big.Int).SetString(pr.Cumulative, 10)
			if !ok {
				return fmt.Errorf("the chain's cumulative %q is not a number", pr.Cumulative)
			}
			proof := make([][32]byte, len(pr.Proof))
			hashes := make([]common.Hash, len(pr.Proof))
			for i, h := range pr.Proof {
				if hashes[i], err = parseHash(h); err != nil {
					return fmt.Errorf("proof: %w", err)
				}
				proof[i] = hashes[i]
			}
			// The chain may keep a root the vault did not accept; only the
			// accepted one pays, so check before spending gas.
			if !payout.Verify(acc.Root, hashes, account, cumulative) {
				return fmt.Errorf("the chain's proof for %s (epoch %d) does not verify against the vault's accepted root %x", account, acc.Epoch, acc.Root)
			}
			claimed, err := call(ctx, e, e.vault.PackClaimed(account), e.vault.UnpackClaimed)
			if err != nil {
				return fmt.Errorf("vault claimed: %w", err)
			}
			if cumulative.Cmp(claimed) <= 0 {
				return fmt.Errorf("nothing to claim: %s's cumulative under epoch %d is %s and %s was already paid", account, acc.Epoch, cumulative, claimed)
			}
			rcpt, err := e.send(ctx, key, e.vaultC, e.vault.PackClaim(account, cumulative, proof))
			if err != nil {
				return fmt.Errorf("claim: %w", err)
			}
			paid := new(big.Int).Sub(cumulative, claimed)
			for _, l := range rcpt.Logs {
				if ev, err := e.vault.UnpackClaimedEvent(l); err == nil && ev.Account == account {
					paid = ev.Amount
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "paid %s to %s (epoch %d, cumulative %s, tx %s)\n", paid, account.Hex(), acc.Epoch, cumulative, rcpt.TxHash.Hex())
			return nil
		},
	}
	addNodeFlags(cmd)
	addEthRPCFlag(cmd)
	addEthKeyFlags(cmd, "the key that pays the claim's gas (the tokens go to the account)")
	return cmd
}
