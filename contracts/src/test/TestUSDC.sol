// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title TestUSDC
/// @notice A 6-decimal ERC-20 for development chains and tests: anyone may
/// mint. Never deploy it where it could be mistaken for money.
contract TestUSDC is ERC20 {
    constructor() ERC20("Test USD Coin", "tUSDC") {}

    /// @notice USDC's precision.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` to `to`; open to anyone, as befits a test token.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
