// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Forwarder} from "./Forwarder.sol";

/// @title ForwarderFactory: deploys and flushes Satchel deposit addresses
/// @notice A deposit address for (cold, salt) is the CREATE2 address of a 71-byte proxy whose code
/// is fixed by `cold`. Payers pay to it before it has code; `flush` deploys it if needed and sends
/// everything it holds to `cold`, in one transaction from a relayer that only pays gas.
/// @dev Why a proxy rather than a full forwarder per address: deploying code costs 200 gas a byte.
/// The compiled Forwarder's runtime code is about 1.45 kB (about 365,000 gas to deploy, measured on
/// anvil), while this proxy's 71 bytes cost 14,200 gas of code deposit; the proxy's price is a
/// delegatecall to the implementation (about 2,700 gas) on each flush. A deposit address is
/// flushed once or twice, so deploy + flush is far cheaper with the proxy (about 145,000 gas for
/// deploy + native + one token to a cold address that held neither before).
///
/// Proxy runtime code (51 bytes, then the 20-byte cold address):
///   36 6005 57 00 5b        if there is no call data, stop: a plain payment is accepted (and
///                           costs the payer almost nothing, within the 2300-gas stipend that
///                           Solidity's transfer() gives), to be forwarded by the next flush
///   363d3d373d3d3d363d 73<implementation> 5af43d82803e903d91 6031 57fd5bf3
///                           otherwise: the EIP-1167 minimal proxy, delegating to the one
///                           Forwarder this factory created (jump target moved by the 6 bytes before)
///   <cold>                  never executed; Forwarder reads it with extcodecopy
///
/// Why the cold address cannot be swapped: it is part of the init code, so the CREATE2 address
/// commits to it; `flush(otherCold, salt, ...)` computes and touches a different address. The
/// implementation address is fixed at construction, and Forwarder has no way to change code.
/// No owner, no upgrade, no selfdestruct; the factory holds no funds and no state besides two
/// immutables: the implementation's address and the chain's CREATE2 prefix.
///
/// The same bytecode runs on the EVM and on TRON's TVM, whose CREATE2 differ in one byte: an
/// address is keccak256(prefix ++ deployer ++ salt ++ keccak256(init code)) with prefix 0xff on the
/// EVM and 0x41 on TRON. A factory that assumed 0xff would, on TRON, deploy a deposit address at
/// one place and look for it at another, so no flush could succeed. The constructor therefore
/// creates the implementation with CREATE2 (salt 0) and recognises the prefix from where it landed.
/// That also makes the implementation's address computable offline on both chains (a CREATE
/// address on TRON depends on the transaction's id, not on a nonce).
///
/// On EVM chains the factory is deployed through the deterministic deployment proxy
/// (0x4e59b44847b379578588920ca78fbf26c0b4956c) with a fixed salt, so its address, the
/// implementation's and every deposit address are the same on every chain and can be computed
/// offline.
contract ForwarderFactory {
    /// @notice The Forwarder every proxy delegates to.
    address public immutable implementation;

    /// @notice The first byte of this chain's CREATE2 address preimage: 0xff on the EVM, 0x41 on
    /// TRON's TVM.
    bytes1 public immutable prefix;

    error ZeroColdAddress();
    error DeployFailed();
    error UnknownCreate2Prefix();

    constructor() {
        address impl = address(new Forwarder{salt: bytes32(0)}());
        bytes32 h = keccak256(type(Forwarder).creationCode);
        bytes1 p;
        if (impl == create2Address(0xff, bytes32(0), h)) p = 0xff;
        else if (impl == create2Address(0x41, bytes32(0), h)) p = 0x41;
        // Any other rule would make every deposit address unflushable: refuse to exist instead.
        else revert UnknownCreate2Prefix();
        implementation = impl;
        prefix = p;
    }

    /// @notice The deposit address for `cold` and a per-invoice `salt`, deployed or not.
    function forwarderAddress(address cold, bytes32 salt) public view returns (address) {
        return create2Address(prefix, salt, keccak256(proxyInitCode(cold)));
    }

    /// @notice Deploys the deposit address for (`cold`, `salt`) if it has no code yet, then sends its
    /// whole balance of each of `tokens`, and with `native` its whole native balance, to `cold`.
    /// @dev Anyone may call this: whatever the arguments, funds at a deposit address only go to the
    /// cold address it was made for. A zero cold address is refused so nothing is ever burnt.
    /// `native` is normally true; false moves the tokens when `cold` refuses the native coin.
    function flush(address cold, bytes32 salt, address[] calldata tokens, bool native) external returns (address forwarder) {
        if (cold == address(0)) revert ZeroColdAddress();
        forwarder = forwarderAddress(cold, salt);
        if (forwarder.code.length == 0) {
            bytes memory init = proxyInitCode(cold);
            address deployed;
            assembly {
                deployed := create2(0, add(init, 32), mload(init), salt)
            }
            if (deployed != forwarder) revert DeployFailed();
        }
        Forwarder(payable(forwarder)).flush(tokens, native);
    }

    /// @notice The init code of the deposit address for `cold`: returns the 71-byte proxy code.
    function proxyInitCode(address cold) public view returns (bytes memory) {
        return abi.encodePacked(
            hex"3d604780600a3d3981f3", // copy the 71 (0x47) bytes after these 10 and return them
            hex"36600557005b363d3d373d3d3d363d73",
            implementation,
            hex"5af43d82803e903d91603157fd5bf3",
            cold
        );
    }

    /// @dev Where CREATE2 by this factory puts init code hashing to `initHash`, with `p` as the prefix.
    function create2Address(bytes1 p, bytes32 salt, bytes32 initHash) private view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(p, address(this), salt, initHash)))));
    }
}
