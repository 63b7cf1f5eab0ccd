// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";

/// @title ReentrantToken
/// @notice A test-only 6-decimal ERC-20 that, once armed, calls back into a
/// target in the middle of its next transfer, to show the vault refuses
/// reentry.
contract ReentrantToken is ERC20 {
    address private _target;
    bytes private _payload;

    constructor() ERC20("Reentrant Test Coin", "tRE") {}

    /// @notice USDC's precision.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` to `to`; open to anyone.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Makes the next transfer call `target` with `payload`.
    function arm(address target, bytes calldata payload) external {
        _target = target;
        _payload = payload;
    }

    function _update(address from, address to, uint256 value) internal override {
        super._update(from, to, value);
        address target = _target;
        if (target != address(0) && from != address(0)) {
            _target = address(0);
            Address.functionCall(target, _payload);
        }
    }
}
