// The deposit-address forwarder on a real node (anvil): the factory deployed through the
// deterministic deployment proxy lands where create2.ts says; deposit addresses computed offline
// receive ETH and tokens before they have code; one relayer transaction deploys and flushes them to
// their merchant's cold address only; nobody can send the funds anywhere else. Gas is printed for
// the comparison with today's sweep (gas top-up + token transfer from a deposit key).
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, getAddress, keccak256, parseEther, stringToHex, type Abi, type Address, type Hex } from 'viem';
import { deployToken, startAnvil, type Anvil, type TestToken } from './anvil.ts';
import * as artifacts from '../../../src/chain/evm/forwarder/artifacts.ts';
import { compileForwarder } from '../../../src/chain/evm/forwarder/compile.ts';
import {
  DEPLOYMENT_PROXY,
  depositSalt,
  factoryAddress,
  factoryDeployment,
  forwarderAddress,
  implementationAddress,
  proxyInitCode,
} from '../../../src/chain/evm/forwarder/create2.ts';
import { FLUSH_ABI, flushCall } from '../../../src/chain/evm/forwarder/index.ts';

const { FACTORY_ABI, FORWARDER_ABI } = artifacts;

// Two merchants' cold addresses (keys nobody here holds) and an address a thief would like.
const coldA = addr('merchant A cold');
const coldB = addr('merchant B cold');
const thief = addr('thief');
const PAYER = 0;
const RELAYER = 1;
const DEPOSIT_EOA = 3; // today's sweep: a deposit address with its own key

function addr(label: string): Address {
  return getAddress(`0x${keccak256(stringToHex(label)).slice(26)}`);
}

let anvil: Anvil;
let usdt: TestToken;
let dai: TestToken;
const gas: Record<string, bigint> = {};

async function mined(hash: Hex) {
  const r = await anvil.pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  expect(r.status).toBe('success');
  return r;
}

async function flush(cold: Address, salt: Hex, tokens: Address[], from = RELAYER, native = true) {
  return mined(await anvil.wallet(from).sendTransaction(flushCall(cold, salt, tokens, { native })));
}

async function pay(to: Address, wei: bigint, data?: Hex) {
  return mined(await anvil.wallet(PAYER).sendTransaction({ to, value: wei, data }));
}

async function payToken(token: TestToken, to: Address, units: bigint) {
  return mined(await token.transfer(PAYER, to, units));
}

/** `onChain` with each of `words` blanked where the committed code has an immutable's 32 zero
 * bytes (and only there: the same bytes elsewhere, e.g. a mask constant, are left alone). */
function unfill(onChain: Hex, committed: Hex, words: string[]): Hex {
  let out = onChain.toLowerCase();
  const zeros = '0'.repeat(64);
  for (const w of words) {
    for (let i = out.indexOf(w, 2); i >= 0; i = out.indexOf(w, i + 1)) {
      if ((i - 2) % 2 === 0 && committed.slice(i, i + 64) === zeros) out = out.slice(0, i) + zeros + out.slice(i + 64);
    }
  }
  return out as Hex;
}

const eth = (a: Address) => anvil.pub.getBalance({ address: a });
const code = async (a: Address) => (await anvil.pub.getCode({ address: a })) ?? '0x';

beforeAll(async () => {
  anvil = await startAnvil({ automine: true });
  usdt = await deployToken(anvil, 'USDT', 6);
  dai = await deployToken(anvil, 'DAI', 18);
  await mined(await usdt.mint(anvil.account(PAYER).address, 10n ** 12n));
  await mined(await dai.mint(anvil.account(PAYER).address, 10n ** 24n));
});

afterAll(async () => {
  console.log('forwarder gas:', Object.fromEntries(Object.entries(gas).map(([k, v]) => [k, Number(v)])));
  await anvil?.stop();
});

describe('committed artifacts', () => {
  it('are byte for byte what the recorded solc version and settings make of the sources', () => {
    const c = compileForwarder();
    expect(c.solcVersion, 'solc differs from the recorded version: compile with that one').toBe(artifacts.SOLC_VERSION);
    expect(c.settings).toEqual(artifacts.SOLC_SETTINGS);
    expect(c.factory.bytecode).toBe(artifacts.FACTORY_BYTECODE);
    expect(c.factory.deployedBytecode).toBe(artifacts.FACTORY_DEPLOYED_BYTECODE);
    expect(c.forwarder.bytecode).toBe(artifacts.FORWARDER_BYTECODE);
    expect(c.forwarder.deployedBytecode).toBe(artifacts.FORWARDER_DEPLOYED_BYTECODE);
    expect(c.factory.abi).toEqual(artifacts.FACTORY_ABI);
    expect(c.forwarder.abi).toEqual(artifacts.FORWARDER_ABI);
  });

  it('give the forwarder no function that takes a destination', () => {
    const fns = FORWARDER_ABI.filter((x) => x.type === 'function').map((f) => `${f.name}(${f.inputs.map((i) => i.type).join(',')})`);
    expect(fns.sort()).toEqual(['coldAddress()', 'flush(address[],bool)']);
  });
});

describe('offline addresses', () => {
  it('pin the factory address: changing the contracts or their compilation moves every address', () => {
    // Deposit addresses handed out before a change would no longer be flushable by the new
    // factory, so a change here must be deliberate (and made before the first deployment).
    expect(factoryAddress()).toBe('0xCB60922cfd2819A320b8A37e352449F1Ae2C569b');
    expect(implementationAddress()).toBe('0x3EdAa31E0a9B538844a618b300b96D12C43E3CB6');
    expect(forwarderAddress('0x000000000000000000000000000000000000dEaD', depositSalt('invoice-1'))).toBe(
      '0xC099aE0C3028110316b337c668c80e6ad1BeC904',
    );
  });

  it('compute TRON addresses with the 0x41 prefix, as the TVM does (checked by hand-built preimages)', () => {
    // TRON's CREATE2 is keccak256(0x41 ++ deployer ++ salt ++ keccak256(init code)) (java-tron's
    // WalletUtil.generateContractAddress2 over the deployer's 21-byte TRON address); built here
    // byte by byte from that rule and the proxy layout in ForwarderFactory.sol, without create2.ts.
    const tronFactory = addr('a factory deployed on TRON');
    const salt = depositSalt('tron-invoice-1');
    const hex = (h: string) => h.slice(2).toLowerCase();
    const tronCreate2 = (deployer: Address, s: Hex, initHash: Hex) =>
      getAddress(`0x${keccak256(`0x41${hex(deployer)}${hex(s)}${hex(initHash)}`).slice(-40)}`);
    const impl = tronCreate2(tronFactory, `0x${'00'.repeat(32)}`, keccak256(artifacts.FORWARDER_BYTECODE));
    const init: Hex = `0x3d604780600a3d3981f336600557005b363d3d373d3d3d363d73${hex(impl)}5af43d82803e903d91603157fd5bf3${hex(coldA)}`;
    expect(implementationAddress(tronFactory, 0x41)).toBe(impl);
    expect(forwarderAddress(coldA, salt, tronFactory, 0x41)).toBe(tronCreate2(tronFactory, salt, keccak256(init)));
    // the same (factory, cold, salt) is another address under the EVM's 0xff
    expect(implementationAddress(tronFactory)).not.toBe(impl);
    expect(forwarderAddress(coldA, salt, tronFactory)).not.toBe(forwarderAddress(coldA, salt, tronFactory, 0x41));
    expect(forwarderAddress(coldA, salt, tronFactory, 0xff)).toBe(forwarderAddress(coldA, salt, tronFactory));
    // and the EVM default agrees with the same hand-built rule under 0xff
    const evmImpl = getAddress(`0x${keccak256(`0xff${hex(factoryAddress())}${'00'.repeat(32)}${hex(keccak256(artifacts.FORWARDER_BYTECODE))}`).slice(-40)}`);
    expect(implementationAddress()).toBe(evmImpl);
    expect(() => forwarderAddress(coldA, salt, tronFactory, 0xa0 as 0x41)).toThrow(/prefix must be 0xff \(EVM\) or 0x41 \(TRON\)/);
  });

  it('commit to the cold address and the salt, and refuse bad input', () => {
    const salt = depositSalt('invoice-1');
    expect(forwarderAddress(coldA, salt)).not.toBe(forwarderAddress(coldB, salt));
    expect(forwarderAddress(coldA, salt)).not.toBe(forwarderAddress(coldA, depositSalt('invoice-2')));
    expect(forwarderAddress(coldA.toLowerCase() as Address, salt)).toBe(forwarderAddress(coldA, salt));
    expect(proxyInitCode(coldA).toLowerCase().endsWith(coldA.slice(2).toLowerCase())).toBe(true);
    expect((proxyInitCode(coldA).length - 2) / 2).toBe(10 + 71);
    expect(() => forwarderAddress('0x0000000000000000000000000000000000000000', salt)).toThrow(/zero address/);
    expect(() => forwarderAddress(coldA, '0x1234')).toThrow(/32 bytes/);
    expect(() => forwarderAddress('0x1234' as Address, salt)).toThrow();
    expect(() => depositSalt('')).toThrow();
  });
});

describe('forwarder on anvil', () => {
  const saltA = depositSalt('invoice-1');
  const saltB = depositSalt('invoice-2');
  let fwdA: Address;
  let fwdB: Address;

  it('deploys the factory through the deterministic deployment proxy at the offline address', async () => {
    expect(await code(DEPLOYMENT_PROXY)).not.toBe('0x');
    expect(await code(factoryAddress())).toBe('0x');
    const r = await mined(await anvil.wallet(RELAYER).sendTransaction(factoryDeployment()));
    gas.factoryDeploy = r.gasUsed;
    expect(await code(factoryAddress())).not.toBe('0x');
    const impl = await anvil.pub.readContract({ address: factoryAddress(), abi: FACTORY_ABI, functionName: 'implementation' });
    expect(impl).toBe(implementationAddress());
    // the factory recognised the EVM's CREATE2 rule from where its implementation landed
    expect(await anvil.pub.readContract({ address: factoryAddress(), abi: FACTORY_ABI, functionName: 'prefix' })).toBe('0xff');
    // on chain is the committed runtime code, with the immutables filled in: the implementation's
    // address (in both) and the factory's prefix 0xff (left-aligned, as bytes1 is)
    const implWord = impl.slice(2).toLowerCase().padStart(64, '0');
    expect(unfill(await code(impl), artifacts.FORWARDER_DEPLOYED_BYTECODE, [implWord])).toBe(artifacts.FORWARDER_DEPLOYED_BYTECODE);
    expect(unfill(await code(factoryAddress()), artifacts.FACTORY_DEPLOYED_BYTECODE, [implWord, 'ff'.padEnd(64, '0')])).toBe(
      artifacts.FACTORY_DEPLOYED_BYTECODE,
    );
    // the factory's view agrees with the offline computation, init code included
    fwdA = forwarderAddress(coldA, saltA);
    fwdB = forwarderAddress(coldB, saltB);
    for (const [cold, salt, fwd] of [[coldA, saltA, fwdA], [coldB, saltB, fwdB]] as const) {
      const onChain = await anvil.pub.readContract({ address: factoryAddress(), abi: FACTORY_ABI, functionName: 'forwarderAddress', args: [cold, salt] });
      expect(onChain).toBe(fwd);
      const init = await anvil.pub.readContract({ address: factoryAddress(), abi: FACTORY_ABI, functionName: 'proxyInitCode', args: [cold] });
      expect(init).toBe(proxyInitCode(cold).toLowerCase());
    }
    expect(fwdA).not.toBe(fwdB);
    expect(forwarderAddress(coldB, saltA)).not.toBe(fwdA);
  });

  it('pays two merchants at addresses without code, and one relayer transaction each deploys and flushes', async () => {
    expect(await code(fwdA)).toBe('0x');
    expect(await code(fwdB)).toBe('0x');
    await pay(fwdA, parseEther('1.5'));
    await payToken(usdt, fwdA, 123_450_000n);
    await pay(fwdB, parseEther('0.25'));
    await payToken(usdt, fwdB, 7_000_000n);
    await payToken(dai, fwdB, parseEther('42'));

    const relayerBefore = await eth(anvil.account(RELAYER).address);
    const rA = await flush(coldA, saltA, [usdt.address]);
    gas.deployAndFlushNativeAnd1Token = rA.gasUsed;
    expect(await code(fwdA)).toMatch(/^0x36600557005b/);
    expect(await eth(coldA)).toBe(parseEther('1.5'));
    expect(await usdt.balanceOf(coldA)).toBe(123_450_000n);
    expect(await eth(fwdA)).toBe(0n);
    expect(await usdt.balanceOf(fwdA)).toBe(0n);
    // merchant B untouched by A's flush
    expect(await eth(coldB)).toBe(0n);
    expect(await eth(fwdB)).toBe(parseEther('0.25'));
    // the relayer only paid gas
    const relayerAfter = await eth(anvil.account(RELAYER).address);
    expect(relayerBefore - relayerAfter).toBe(rA.gasUsed * rA.effectiveGasPrice);

    const rB = await flush(coldB, saltB, [usdt.address, dai.address]);
    gas.deployAndFlushNativeAnd2Tokens = rB.gasUsed;
    expect(await eth(coldB)).toBe(parseEther('0.25'));
    expect(await usdt.balanceOf(coldB)).toBe(7_000_000n);
    expect(await dai.balanceOf(coldB)).toBe(parseEther('42'));
    expect(await eth(fwdB)).toBe(0n);
    expect(await usdt.balanceOf(fwdB)).toBe(0n);
    expect(await dai.balanceOf(fwdB)).toBe(0n);
    expect(await usdt.balanceOf(coldA)).toBe(123_450_000n);

    const coldOfA = await anvil.pub.readContract({ address: fwdA, abi: FORWARDER_ABI, functionName: 'coldAddress' });
    expect(coldOfA).toBe(coldA);
  });

  it('accepts later payments at the deployed address and flushes them again', async () => {
    const plain = await pay(fwdA, parseEther('0.5'));
    gas.plainPaymentToDeployed = plain.gasUsed;
    expect(plain.gasUsed).toBeLessThan(21_100n); // accepted by the proxy itself, no delegatecall
    const withData = await pay(fwdA, parseEther('0.1'), '0xdeadbeef');
    gas.paymentWithDataToDeployed = withData.gasUsed;
    await payToken(usdt, fwdA, 1_000_000n);
    expect(await eth(fwdA)).toBe(parseEther('0.6'));

    const r = await flush(coldA, saltA, [usdt.address]);
    gas.secondFlushNativeAnd1Token = r.gasUsed;
    expect(await eth(coldA)).toBe(parseEther('2.1'));
    expect(await usdt.balanceOf(coldA)).toBe(124_450_000n);
    expect(await eth(fwdA)).toBe(0n);
    expect(await usdt.balanceOf(fwdA)).toBe(0n);

    // a flush with nothing to move is harmless
    await flush(coldA, saltA, [usdt.address, dai.address]);
    expect(await eth(coldA)).toBe(parseEther('2.1'));
  });

  it('costs less for a merchant whose cold address already holds the coin and the token', async () => {
    // the usual case: the first flush to a cold address pays for creating its account and token
    // balance once; later invoices of the same merchant do not
    const salt = depositSalt('invoice-3');
    const fwd = forwarderAddress(coldA, salt);
    await pay(fwd, parseEther('0.2'));
    await payToken(usdt, fwd, 2_000_000n);
    const r = await flush(coldA, salt, [usdt.address]);
    gas.deployAndFlushNativeAnd1TokenToFundedCold = r.gasUsed;
    expect(await eth(coldA)).toBe(parseEther('2.3'));
    expect(await usdt.balanceOf(coldA)).toBe(126_450_000n);
    expect(await eth(fwd)).toBe(0n);
    expect(await usdt.balanceOf(fwd)).toBe(0n);

    // token only (the common stablecoin invoice)
    const salt4 = depositSalt('invoice-4');
    await payToken(usdt, forwarderAddress(coldA, salt4), 3_000_000n);
    gas.deployAndFlush1TokenToFundedCold = (await flush(coldA, salt4, [usdt.address])).gasUsed;
    // native only
    const salt5 = depositSalt('invoice-5');
    await pay(forwarderAddress(coldA, salt5), parseEther('0.1'));
    gas.deployAndFlushNativeToFundedCold = (await flush(coldA, salt5, [])).gasUsed;
    expect(await eth(coldA)).toBe(parseEther('2.4'));
    expect(await usdt.balanceOf(coldA)).toBe(129_450_000n);
  });

  it('lets nobody send a deposit anywhere but its cold address', async () => {
    await pay(fwdA, parseEther('0.3'));
    await payToken(usdt, fwdA, 5_000_000n);

    // the relayer naming another cold address with A's salt reaches a different, empty forwarder
    const elsewhere = forwarderAddress(thief, saltA);
    expect(elsewhere).not.toBe(fwdA);
    await flush(thief, saltA, [usdt.address]);
    expect(await eth(thief)).toBe(0n);
    expect(await usdt.balanceOf(thief)).toBe(0n);
    expect(await eth(fwdA)).toBe(parseEther('0.3'));
    expect(await usdt.balanceOf(fwdA)).toBe(5_000_000n);

    // calling the deposit address directly: a token-transfer-shaped call moves nothing
    await mined(
      await anvil.wallet(RELAYER).sendTransaction({
        to: fwdA,
        data: encodeFunctionData({ abi: erc20TransferAbi, functionName: 'transfer', args: [thief, 5_000_000n] }),
      }),
    );
    expect(await usdt.balanceOf(fwdA)).toBe(5_000_000n);

    // the implementation refuses to act for itself (its code carries no cold address)
    const impl = implementationAddress();
    await expect(
      anvil.pub.simulateContract({ address: impl, abi: FORWARDER_ABI, functionName: 'flush', args: [[], true], account: anvil.account(RELAYER) }),
    ).rejects.toThrow(/NotAProxy/);
    const direct = await anvil.wallet(PAYER).sendTransaction({ to: impl, value: 1n, gas: 100_000n });
    expect((await anvil.pub.waitForTransactionReceipt({ hash: direct, pollingInterval: 20 })).status).toBe('reverted');
    expect(await eth(impl)).toBe(0n);

    // a zero cold address is refused
    await expect(
      anvil.pub.simulateContract({
        address: factoryAddress(),
        abi: FACTORY_ABI,
        functionName: 'flush',
        args: ['0x0000000000000000000000000000000000000000', saltA, [], true],
        account: anvil.account(RELAYER),
      }),
    ).rejects.toThrow(/ZeroColdAddress/);

    // anyone may flush, and it still goes to A's cold address
    await flush(coldA, saltA, [usdt.address], 4);
    expect(await eth(coldA)).toBe(parseEther('2.7'));
    expect(await usdt.balanceOf(coldA)).toBe(134_450_000n);
    expect(await eth(fwdA)).toBe(0n);
  });

  it('accepts a payment from a contract that gives only the 2300-gas stipend (Solidity transfer())', async () => {
    const { stipend } = await deployOddContracts();
    const before = await eth(fwdA);
    await mined(
      await anvil.wallet(PAYER).writeContract({ address: stipend, abi: stipendAbi, functionName: 'pay', args: [fwdA], value: 12345n, gas: 100_000n }),
    );
    expect(await eth(fwdA)).toBe(before + 12345n);
    await flush(coldA, saltA, []);
    expect(await eth(fwdA)).toBe(0n);
  });

  it('needs no reentrancy guard: a cold address that flushes again on receipt still gets exactly the deposit', async () => {
    const { reentering } = await deployOddContracts();
    const salt = depositSalt('invoice-reenter');
    await mined(await anvil.wallet(PAYER).writeContract({ address: reentering, abi: reenteringAbi, functionName: 'set', args: [factoryAddress(), salt] }));
    const fwd = forwarderAddress(reentering, salt);
    await pay(fwd, parseEther('0.4'));
    await flush(reentering, salt, []);
    expect(await anvil.pub.readContract({ address: reentering, abi: reenteringAbi, functionName: 'calls' })).toBe(1n);
    expect(await eth(reentering)).toBe(parseEther('0.4'));
    expect(await eth(fwd)).toBe(0n);
  });

  it('still moves the tokens when the cold address refuses the native coin (one wei cannot block them)', async () => {
    const { falsy: refuses } = await deployOddContracts(); // a contract without receive or fallback
    const salt = depositSalt('invoice-refusing-cold');
    const fwd = forwarderAddress(refuses, salt);
    await pay(fwd, 1n);
    await payToken(usdt, fwd, 9_000_000n);
    await expect(
      anvil.pub.simulateContract({ address: factoryAddress(), abi: FLUSH_ABI, functionName: 'flush', args: [refuses, salt, [usdt.address], true], account: anvil.account(RELAYER) }),
    ).rejects.toThrow(/NativeTransferFailed/);
    await flush(refuses, salt, [usdt.address], RELAYER, false);
    expect(await usdt.balanceOf(refuses)).toBe(9_000_000n);
    expect(await usdt.balanceOf(fwd)).toBe(0n);
    expect(await eth(fwd)).toBe(1n); // kept for a later flush
  });

  it('forwards tokens that return no bool (USDT on Ethereum) and refuses tokens that return false and keep the balance', async () => {
    const { noBool, falsy } = await deployOddContracts();
    const salt = depositSalt('invoice-odd');
    const fwd = forwarderAddress(coldA, salt);
    await mined(await anvil.wallet(PAYER).writeContract({ address: noBool, abi: oddAbi, functionName: 'mint', args: [fwd, 777n] }));
    await flush(coldA, salt, [noBool]);
    expect(await oddBalance(noBool, coldA)).toBe(777n);
    expect(await oddBalance(noBool, fwd)).toBe(0n);

    await mined(await anvil.wallet(PAYER).writeContract({ address: falsy, abi: oddAbi, functionName: 'mint', args: [fwd, 5n] }));
    await expect(
      anvil.pub.simulateContract({ address: factoryAddress(), abi: FLUSH_ABI, functionName: 'flush', args: [coldA, salt, [falsy], true], account: anvil.account(RELAYER) }),
    ).rejects.toThrow(/TokenTransferFailed/);
    // sent for real, the whole flush reverts: the other token and the native coin stay too
    await pay(fwd, 1000n);
    await mined(await anvil.wallet(PAYER).writeContract({ address: noBool, abi: oddAbi, functionName: 'mint', args: [fwd, 3n] }));
    const coldEth = await eth(coldA);
    const tx = await anvil.wallet(RELAYER).sendTransaction({ ...flushCall(coldA, salt, [noBool, falsy]), gas: 300_000n });
    expect((await anvil.pub.waitForTransactionReceipt({ hash: tx, pollingInterval: 20 })).status).toBe('reverted');
    expect(await oddBalance(falsy, fwd)).toBe(5n);
    expect(await oddBalance(falsy, coldA)).toBe(0n);
    expect(await oddBalance(noBool, fwd)).toBe(3n);
    expect(await eth(fwd)).toBe(1000n);
    expect(await eth(coldA)).toBe(coldEth);
    // an address without code is not a token
    await expect(
      anvil.pub.simulateContract({ address: factoryAddress(), abi: FLUSH_ABI, functionName: 'flush', args: [coldA, salt, [thief], true], account: anvil.account(RELAYER) }),
    ).rejects.toThrow(/TokenBalanceFailed/);
  });

  it('forwards a token that returns false from a transfer that succeeded (USDT on TRON), and refuses a partial move', async () => {
    const { falseOnSuccess, partial } = await deployOddContracts();
    const salt = depositSalt('invoice-false-on-success');
    const fwd = forwarderAddress(coldB, salt);
    await mined(await anvil.wallet(PAYER).writeContract({ address: falseOnSuccess, abi: oddAbi, functionName: 'mint', args: [fwd, 1_234_567n] }));
    await pay(fwd, parseEther('0.01'));
    const coldEth = await eth(coldB);
    const r = await flush(coldB, salt, [falseOnSuccess, usdt.address]);
    gas.deployAndFlushNativeAndFalseOnSuccessToken = r.gasUsed;
    expect(await oddBalance(falseOnSuccess, coldB)).toBe(1_234_567n);
    expect(await oddBalance(falseOnSuccess, fwd)).toBe(0n);
    expect(await eth(coldB)).toBe(coldEth + parseEther('0.01'));
    expect(await eth(fwd)).toBe(0n);
    // paid again at the deployed address, flushed again
    await mined(await anvil.wallet(PAYER).writeContract({ address: falseOnSuccess, abi: oddAbi, functionName: 'mint', args: [fwd, 33n] }));
    await flush(coldB, salt, [falseOnSuccess]);
    expect(await oddBalance(falseOnSuccess, coldB)).toBe(1_234_600n);

    // false after moving only part of the balance proves nothing: refused, nothing moves
    await mined(await anvil.wallet(PAYER).writeContract({ address: partial, abi: oddAbi, functionName: 'mint', args: [fwd, 10n] }));
    await expect(
      anvil.pub.simulateContract({ address: factoryAddress(), abi: FLUSH_ABI, functionName: 'flush', args: [coldB, salt, [partial], true], account: anvil.account(RELAYER) }),
    ).rejects.toThrow(/TokenTransferFailed/);
    const tx = await anvil.wallet(RELAYER).sendTransaction({ ...flushCall(coldB, salt, [partial]), gas: 300_000n });
    expect((await anvil.pub.waitForTransactionReceipt({ hash: tx, pollingInterval: 20 })).status).toBe('reverted');
    expect(await oddBalance(partial, fwd)).toBe(10n);
    expect(await oddBalance(partial, coldB)).toBe(0n);
  });

  it('measures today\'s sweep for comparison: gas top-up, then a token transfer signed by the deposit key', async () => {
    const deposit = anvil.account(DEPOSIT_EOA).address;
    await payToken(usdt, deposit, 123_450_000n);
    const topUp = await mined(await anvil.wallet(RELAYER).sendTransaction({ to: deposit, value: parseEther('0.001') }));
    gas.todayTopUp = topUp.gasUsed;
    // to a fresh address, like the forwarder's first flush to a cold address without tokens
    const fresh = addr('fresh hot wallet');
    const t = await mined(await usdt.transfer(DEPOSIT_EOA, fresh, 123_450_000n));
    gas.todayTokenTransferToFreshAddress = t.gasUsed;
    const t2 = await mined(
      await anvil.wallet(PAYER).writeContract({ address: usdt.address, abi: erc20TransferAbi, functionName: 'transfer', args: [fresh, 1n] }),
    );
    gas.todayTokenTransferToFundedAddress = t2.gasUsed;
    const native = await mined(await anvil.wallet(DEPOSIT_EOA).sendTransaction({ to: fresh, value: parseEther('0.5') }));
    gas.todayNativeSweep = native.gasUsed;
    // a full Forwarder's code deployed per address instead of the 71-byte proxy
    const full = await mined(await anvil.wallet(RELAYER).deployContract({ abi: FORWARDER_ABI, bytecode: artifacts.FORWARDER_BYTECODE }));
    gas.fullForwarderCodeDeploy = full.gasUsed;
    expect(gas.deployAndFlushNativeAnd1Token).toBeLessThan(full.gasUsed);
  });
});

const erc20TransferAbi = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

const stipendAbi = [
  { type: 'function', name: 'pay', stateMutability: 'payable', inputs: [{ name: 'to', type: 'address' }], outputs: [] },
] as const;

const reenteringAbi = [
  { type: 'function', name: 'set', stateMutability: 'nonpayable', inputs: [{ name: 'f', type: 'address' }, { name: 's', type: 'bytes32' }], outputs: [] },
  { type: 'function', name: 'calls', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint256' }] },
] as const;

const oddAbi = [
  { type: 'function', name: 'mint', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'v', type: 'uint256' }], outputs: [] },
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'a', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] },
] as const;

const ODD_CONTRACTS = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract NoBoolToken {
    mapping(address => uint256) public balanceOf;
    function mint(address to, uint256 v) external { balanceOf[to] += v; }
    function transfer(address to, uint256 v) external { balanceOf[msg.sender] -= v; balanceOf[to] += v; }
}
contract StipendSender {
    function pay(address payable to) external payable { to.transfer(msg.value); }
}
interface IFlush { function flush(address cold, bytes32 salt, address[] calldata tokens, bool native) external returns (address); }
/// A cold address that calls flush again from its receive: the reentrant flush finds the deposit
/// address already empty, and nothing can go anywhere but here.
contract ReenteringCold {
    uint256 public calls;
    address public factory;
    bytes32 public salt;
    function set(address f, bytes32 s) external { factory = f; salt = s; }
    receive() external payable {
        if (++calls == 1) IFlush(factory).flush(address(this), salt, new address[](0), true);
    }
}
contract FalseToken {
    mapping(address => uint256) public balanceOf;
    function mint(address to, uint256 v) external { balanceOf[to] += v; }
    function transfer(address, uint256) external pure returns (bool) { return false; }
}
/// Like USDT on TRON: the transfer happens, and the function returns false (its inherited
/// transfer never sets the return value).
contract FalseOnSuccessToken {
    mapping(address => uint256) public balanceOf;
    function mint(address to, uint256 v) external { balanceOf[to] += v; }
    function transfer(address to, uint256 v) external returns (bool) { balanceOf[msg.sender] -= v; balanceOf[to] += v; return false; }
}
/// Moves half and says false: the balance does not prove the transfer.
contract PartialFalseToken {
    mapping(address => uint256) public balanceOf;
    function mint(address to, uint256 v) external { balanceOf[to] += v; }
    function transfer(address to, uint256 v) external returns (bool) { balanceOf[msg.sender] -= v / 2; balanceOf[to] += v / 2; return false; }
}`;

interface OddContracts {
  noBool: Address;
  falsy: Address;
  falseOnSuccess: Address;
  partial: Address;
  stipend: Address;
  reentering: Address;
}

let odd: Promise<OddContracts> | undefined;

/** The helper contracts above, compiled and deployed once. */
function deployOddContracts() {
  return (odd ??= compileAndDeployOdd());
}

async function compileAndDeployOdd(): Promise<OddContracts> {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Odd.sol': { content: ODD_CONTRACTS } },
        settings: { evmVersion: 'paris', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  ) as { contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>> };
  const deploy = async (name: string) => {
    const c = out.contracts['Odd.sol']![name]!;
    const r = await mined(await anvil.wallet(PAYER).deployContract({ abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }));
    return r.contractAddress!;
  };
  return {
    noBool: await deploy('NoBoolToken'),
    falsy: await deploy('FalseToken'),
    falseOnSuccess: await deploy('FalseOnSuccessToken'),
    partial: await deploy('PartialFalseToken'),
    stipend: await deploy('StipendSender'),
    reentering: await deploy('ReenteringCold'),
  };
}

const oddBalance = (token: Address, who: Address) =>
  anvil.pub.readContract({ address: token, abi: oddAbi, functionName: 'balanceOf', args: [who] });
