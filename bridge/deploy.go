package bridge

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

const (
	flagToken     = "token"
	flagGuardian  = "guardian"
	flagRootDelay = "root-delay"
	flagPredict   = "predict"
)

// deployVaultCmd deploys SettlementVault with the chain's newest valset and
// vault id. The chain names its vault (x/bridge's vault_address)
// before the vault exists, so the address is predicted from the deployer
// and its next nonce (--predict prints it without deploying); the
// deployment refuses to go ahead at any other address.
func deployVaultCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "deploy-vault",
		Short: "Deploy the settlement vault with the chain's newest valset (operators, development chains)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			key, err := ethKey(cmd)
			if err != nil {
				return err
			}
			deployer := crypto.PubkeyToAddress(key.PublicKey)
			if predict, _ := cmd.Flags().GetBool(flagPredict); predict {
				e, err := dialEVM(ctx, cmd, common.Address{})
				if err != nil {
					return err
				}
				defer e.client.Close()
				nonce, err := e.client.PendingNonceAt(ctx, deployer)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), crypto.CreateAddress(deployer, nonce).Hex())
				return nil
			}
			f := cmd.Flags()
			tokenS, _ := f.GetString(flagToken)
			guardS, _ := f.GetString(flagGuardian)
			delay, _ := f.GetDuration(flagRootDelay)
			token, err := bridgetypes.ParseEvmAddress(tokenS)
			if err != nil {
				return fmt.Errorf("--%s: %w", flagToken, err)
			}
			guardian, err := bridgetypes.ParseEvmAddress(guardS)
			if err != nil {
				return fmt.Errorf("--%s: %w", flagGuardian, err)
			}
			if delay < time.Second || delay%time.Second != 0 {
				return fmt.Errorf("--%s must be whole seconds, at least 1s", flagRootDelay)
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
			vs, err := q.Valset(ctx, &bridgetypes.QueryValsetRequest{Nonce: 0})
			if err != nil {
				return fmt.Errorf("the chain has no valset yet (validators register their EVM signers first): %w", err)
			}
			e, err := dialEVM(ctx, cmd, p.domain.Vault)
			if err != nil {
				return err
			}
			defer e.client.Close()
			if e.chainID.Cmp(p.domain.ChainID) != 0 {
				return fmt.Errorf("the EVM node is chain %s, the idlegpu chain expects its vault on %s", e.chainID, p.domain.ChainID)
			}
			initial, cp, err := p.checkedValset(vs.Valset)
			if err != nil {
				return err
			}
			nonce, err := e.client.PendingNonceAt(ctx, deployer)
			if err != nil {
				return err
			}
			if at := crypto.CreateAddress(deployer, nonce); at != p.domain.Vault {
				return fmt.Errorf("the chain expects the vault at %s, but %s's next deployment (nonce %d) lands at %s: "+
					"deploy from the predicted key and nonce, or set vault_address by governance first", p.domain.Vault, deployer, nonce, at)
			}
			input := e.vault.PackConstructor(token, p.domain.VaultID, guardian, uint64(delay/time.Second), vaultValset(initial))
			opts := e.transactor(ctx, key)
			addr, tx, err := bind.DeployContract(opts, common.FromHex(bindings.SettlementVaultMetaData.Bin), e.client, input)
			if err != nil {
				return e.explain(err)
			}
			rcpt, err := e.wait(ctx, tx.Hash())
			if err != nil {
				return err
			}
			if rcpt.ContractAddress != addr {
				return fmt.Errorf("deployed at %s, expected %s", rcpt.ContractAddress, addr)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", addr.Hex())
			fmt.Fprintf(cmd.ErrOrStderr(), "vault %s: valset %d (checkpoint %s), vault id %s, token %s, guardian %s, root delay %s (tx %s)\n",
				addr.Hex(), initial.Nonce, cp.Hex(), p.domain.VaultID.Hex(), token.Hex(), guardian.Hex(), delay, tx.Hash().Hex())
			return nil
		},
	}
	addNodeFlags(cmd)
	addEthRPCFlag(cmd)
	addEthKeyFlags(cmd, "the deployer's key")
	cmd.Flags().String(flagToken, "", "ERC-20 the vault holds (6 decimals for uusdc)")
	cmd.Flags().String(flagGuardian, "", "address that may pause the vault")
	cmd.Flags().Duration(flagRootDelay, 24*time.Hour, "timelock between a root's proposal and its acceptance (whole seconds)")
	cmd.Flags().Bool(flagPredict, false, "print the address the deployer's next deployment will have, and exit")
	return cmd
}
