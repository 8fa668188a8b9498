// Issue 26: the gas of a watch-only flush against today's sweep, in one run on anvil.
//  - A flush: ONE relayer transaction that deploys a deposit address's forwarder and moves its ETH
//    and one ERC-20 to the merchant's cold address (flushCall, what the driver sends), and the same
//    for a forwarder already deployed by an earlier flush.
//  - Today's sweep of a token (hot custody): the hot wallet's gas top-up to the deposit address
//    (21,000 gas) plus the ERC-20 transfer signed by the deposit key; and with the deposit's ETH
//    swept too (one more plain transfer).
// Steady state on both sides: the cold address and the hot wallet already hold the token (a first
// transfer to an empty balance costs more, the same on both sides), the deposit addresses are new.
import { encodeFunctionData, erc20Abi, getAddress, keccak256, parseEther, parseUnits, stringToHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { depositSalt, factoryDeployment, forwarderAddress } from '../src/chain/evm/forwarder/create2.ts';
import { flushCall } from '../src/chain/evm/forwarder/index.ts';
import { deployToken, startAnvil, type Anvil } from '../test/chain/evm/anvil.ts';
import type { Row } from './api.ts';

const PAYER = 0;
const RELAYER = 1;
const HOT = 2;

async function gasOf(anvil: Anvil, hash: Hex): Promise<bigint> {
  const r = await anvil.pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (r.status !== 'success') throw new Error(`bench transaction ${hash} reverted`);
  return r.gasUsed;
}

const fmt = (n: bigint) => Number(n).toLocaleString('en-US');

export async function flushBench(): Promise<Row[]> {
  const anvil = await startAnvil({ automine: true });
  try {
    const usdt = await deployToken(anvil, 'USDT', 6);
    await gasOf(anvil, await usdt.mint(anvil.account(PAYER).address, parseUnits('1000000', 6)));
    const factoryGas = await gasOf(anvil, await anvil.wallet(RELAYER).sendTransaction(factoryDeployment()));
    const cold = getAddress(`0x${keccak256(stringToHex('bench cold')).slice(26)}`);
    const hot = anvil.account(HOT).address;
    // Steady state: both destinations already hold some of the token.
    await gasOf(anvil, await usdt.transfer(PAYER, cold, 1n));
    await gasOf(anvil, await usdt.transfer(PAYER, hot, 1n));

    const pay = async (to: Address) => {
      await gasOf(anvil, await anvil.wallet(PAYER).sendTransaction({ to, value: parseEther('0.5') }));
      await gasOf(anvil, await usdt.transfer(PAYER, to, parseUnits('25', 6)));
    };

    // A flush of a new forwarder: deploy + ETH + one token, one transaction.
    const salt = depositSalt('bench/0');
    const fresh = forwarderAddress(cold, salt);
    await pay(fresh);
    const flushNew = await gasOf(anvil, await anvil.wallet(RELAYER).sendTransaction(flushCall(cold, salt, [usdt.address], { native: true })));
    if ((await usdt.balanceOf(fresh)) !== 0n || (await anvil.pub.getBalance({ address: fresh })) !== 0n) throw new Error('the flush left funds behind');
    // The same forwarder paid again: already deployed.
    await pay(fresh);
    const flushAgain = await gasOf(anvil, await anvil.wallet(RELAYER).sendTransaction(flushCall(cold, salt, [usdt.address], { native: true })));

    // Today's sweep: a deposit key of the gateway, gas from the hot wallet, then the token transfer.
    const deposit = privateKeyToAccount(generatePrivateKey());
    await pay(deposit.address);
    const topUp = await gasOf(anvil, await anvil.wallet(HOT).sendTransaction({ to: deposit.address, value: parseEther('0.01') }));
    const fees = await anvil.pub.estimateFeesPerGas();
    const nonce = await anvil.pub.getTransactionCount({ address: deposit.address });
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [hot, parseUnits('25', 6)] });
    const tokenRaw = await deposit.signTransaction({
      type: 'eip1559', chainId: anvil.chain.id, nonce, to: usdt.address, data, gas: 100_000n, ...fees,
    });
    const tokenSweep = await gasOf(anvil, await anvil.rpc<Hex>('eth_sendRawTransaction', [tokenRaw]));
    const nativeRaw = await deposit.signTransaction({
      type: 'eip1559', chainId: anvil.chain.id, nonce: nonce + 1, to: hot, value: parseEther('0.4'), gas: 21_000n, ...fees,
    });
    const nativeSweep = await gasOf(anvil, await anvil.rpc<Hex>('eth_sendRawTransaction', [nativeRaw]));

    const sweepToken = topUp + tokenSweep;
    const sweepBoth = sweepToken + nativeSweep;
    const ratio = (a: bigint, b: bigint) => (Number(a) / Number(b)).toFixed(2);
    return [
      {
        name: 'Flush of a new forwarder: deploy + ETH + one ERC-20, one relayer transaction',
        value: `${fmt(flushNew)} gas`,
        baseline: `${fmt(sweepToken)} gas: today's token sweep (gas top-up ${fmt(topUp)} + ERC-20 transfer ${fmt(tokenSweep)})`,
        ratio: ratio(flushNew, sweepToken),
        note: `2 transactions and a hot key today, 1 transaction and no key of the funds with a flush; the factory is deployed once per chain (${fmt(factoryGas)} gas)`,
      },
      {
        name: 'Flush of a new forwarder, against today\'s sweep of the ETH as well',
        value: `${fmt(flushNew)} gas`,
        baseline: `${fmt(sweepBoth)} gas: top-up + ERC-20 transfer + ETH transfer (${fmt(nativeSweep)})`,
        ratio: ratio(flushNew, sweepBoth),
        note: 'today the deposit\'s own ETH needs a third transaction; the flush moves it in the same one',
      },
      {
        name: 'Flush of an already deployed forwarder (paid again): ETH + one ERC-20',
        value: `${fmt(flushAgain)} gas`,
        baseline: `${fmt(sweepToken)} gas: today's token sweep`,
        ratio: ratio(flushAgain, sweepToken),
        note: 'a second payment to the same deposit address',
      },
    ];
  } finally {
    await anvil.stop();
  }
}
