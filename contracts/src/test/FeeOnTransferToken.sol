// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title FeeOnTransferToken
/// @notice A test-only 6-decimal ERC-20 that burns 1% of every transfer
/// between two non-zero addresses, to show the vault credits what it received.
contract FeeOnTransferToken is ERC20 {
    /// @notice The fee, in basis points of each transfer.
    uint256 public constant FEE_BPS = 100;

    constructor() ERC20("Fee Test Coin", "tFEE") {}

    /// @notice USDC's precision.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` to `to`; open to anyone.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0)) {
            uint256 fee = (value * FEE_BPS) / 10_000;
            super._update(from, address(0), fee);
            value -= fee;
        }
        super._update(from, to, value);
    }
}
