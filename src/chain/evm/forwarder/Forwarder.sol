// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Forwarder: the shared code behind every Satchel deposit address
/// @notice A deposit address is a tiny proxy (see ForwarderFactory) whose runtime code ends with the
/// merchant's cold address. This contract is the one implementation those proxies delegate to: it
/// sends the proxy's whole native balance and whole balance of each listed token to that cold
/// address, and nowhere else.
/// @dev Why this is safe:
/// - No function takes a destination. The only destination is read from the proxy's own runtime
///   code, which the proxy's CREATE2 address commits to, and code can never change: there is no
///   owner, no initializer, no storage, no upgrade, no selfdestruct and no delegatecall here.
/// - Anyone may call flush: it can only move funds to the cold address, so a caller (the relayer
///   or a stranger) can at most pay gas for the merchant.
/// - No reentrancy guard: there is no state to corrupt. A reentrant call (from the cold address
///   receiving native coin, or from a listed token contract) can only run flush again, which again
///   sends whatever is left to the same cold address.
/// - Called directly (not through a proxy) it refuses everything: its own code carries no cold
///   address, so it must neither forward nor hold funds.
/// - Native coin is pulled by flush, not pushed on receipt: pushing would make every later payment
///   cost the payer a call to the cold address, fail for senders that give only the 2300-gas
///   stipend of Solidity's transfer(), and bounce payments whenever the cold address rejects them.
///   Accepting and waiting for the next flush behaves like the address did before it had code.
contract Forwarder {
    /// @dev Length of the proxy's runtime code before the appended cold address (see the factory).
    uint256 private constant COLD_OFFSET = 51;

    /// @dev This contract's own address, to tell a direct call from a call through a proxy.
    address private immutable self = address(this);

    error NotAProxy();
    error NativeTransferFailed();
    error TokenBalanceFailed(address token);
    error TokenTransferFailed(address token);

    /// @notice Sends the whole balance of each token in `tokens`, and with `native` the whole native
    /// balance, to the cold address fixed in this deposit address's code.
    /// @dev Any failure reverts the whole flush, so nothing is reported as forwarded that was not
    /// (and gas estimation sees the gas a full flush needs): a token whose balanceOf fails, whose
    /// transfer reverts, or whose transfer answers anything but true without the balance proving
    /// the tokens left, or a refused native transfer. The caller retries without it. That is why
    /// the native leg can be left out: otherwise anyone could send one wei to a deposit address
    /// whose cold address is a contract refusing the native coin and so block its tokens.
    /// The call is low-level because two widespread tokens break the ERC-20 return value: USDT on
    /// Ethereum returns no data (accepted: it reverts on failure), and USDT on TRON returns false
    /// from a transfer that succeeded. A false answer is therefore checked against the balance:
    /// the whole balance was sent, so after a real transfer this address holds none of it, while a
    /// token that really refused (false, nothing moved) still shows it and the flush reverts. The
    /// balance is read again only after such an answer, so well-behaved tokens pay nothing for it.
    /// A listed address without code fails balanceOf (no 32-byte answer).
    function flush(address[] calldata tokens, bool native) external {
        if (address(this) == self) revert NotAProxy();
        address cold = coldAddress();
        uint256 amount = native ? address(this).balance : 0;
        if (amount != 0) {
            // All gas is forwarded: the cold address may be a contract wallet whose receive costs
            // more than 2300 gas.
            (bool ok, ) = cold.call{value: amount}("");
            if (!ok) revert NativeTransferFailed();
        }
        for (uint256 i = 0; i < tokens.length; ++i) {
            address token = tokens[i];
            uint256 balance = tokenBalance(token);
            if (balance == 0) continue;
            (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(0xa9059cbb, cold, balance));
            if (!ok) revert TokenTransferFailed(token);
            if (ret.length != 0 && (ret.length < 32 || abi.decode(ret, (uint256)) != 1)) {
                // Not a plain true (USDT on TRON answers false on success): only the balance,
                // now what it was minus the amount sent, shows the transfer happened.
                if (tokenBalance(token) != 0) revert TokenTransferFailed(token);
            }
        }
    }

    /// @notice The cold address of the deposit address this runs for: the 20 bytes its proxy code
    /// ends with.
    function coldAddress() public view returns (address cold) {
        if (address(this) == self) revert NotAProxy();
        assembly {
            extcodecopy(address(), 0, COLD_OFFSET, 20)
            cold := shr(96, mload(0))
        }
    }

    /// @dev This address's balance of `token`; reverts unless the token answers with 32 bytes.
    function tokenBalance(address token) private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        if (!ok || ret.length < 32) revert TokenBalanceFailed(token);
        return abi.decode(ret, (uint256));
    }

    /// @notice Native coin sent with call data to a deployed deposit address is kept for the next
    /// flush, as it would be before the address had code. (Plain transfers without data never get
    /// here: the proxy accepts them itself.)
    fallback() external payable {
        if (address(this) == self) revert NotAProxy();
    }
}
