// Paying from a browser wallet: exact amounts, the transfer calldata, the chain switch (and add on
// 4902), and each way it can stop, against a scripted EIP-1193 provider.
import { describe, expect, test } from 'vitest';
import { classify, paymentTransaction, payWithWallet, toBaseUnits, transferData, WalletError } from '../../src/page/evm-tx.ts';
import type { PayerEvm } from '../../src/contracts/payer.ts';
import type { Eip1193Provider } from '../../src/page/wallets.ts';

const TO = '0x1234567890AbcdEF1234567890aBcdef12345678';
const FROM = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const USDT: PayerEvm = {
  chain_id: 137,
  chain_name: 'Polygon',
  rpc_urls: ['https://polygon-rpc.com'],
  explorer_url: 'https://polygonscan.com',
  native: { name: 'Polygon', symbol: 'POL', decimals: 18 },
  contract: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
  decimals: 6,
};
const ETH: PayerEvm = { ...USDT, chain_id: 1, chain_name: 'Ethereum', contract: null, decimals: 18 };

describe('amounts', () => {
  test('decimal strings become exact base units, beyond what a JS number holds', () => {
    expect(toBaseUnits('15', 6)).toBe(15_000_000n);
    expect(toBaseUnits('0.000001', 6)).toBe(1n);
    expect(toBaseUnits('1.100000', 6)).toBe(1_100_000n);
    expect(toBaseUnits('123456789.123456789012345678', 18)).toBe(123456789123456789012345678n);
    expect(toBaseUnits('0.1', 18)).toBe(100000000000000000n);
  });

  test('an amount that would lose a digit, or is not a plain decimal, is refused', () => {
    expect(() => toBaseUnits('0.0000001', 6)).toThrow(/more than 6 decimals/);
    expect(toBaseUnits('1.0000000', 6)).toBe(1_000_000n); // trailing zeros lose nothing
    for (const bad of ['', '-1', '1e6', '1,5', ' 1', '0x10']) expect(() => toBaseUnits(bad, 6)).toThrow();
  });
});

describe('transactions', () => {
  test('ERC-20: transfer(address,uint256) on the token contract, value 0', () => {
    const data = transferData(TO, 15_000_000n);
    expect(data).toBe(
      '0xa9059cbb' + '0000000000000000000000001234567890abcdef1234567890abcdef12345678' + '0000000000000000000000000000000000000000000000000000000000e4e1c0',
    );
    expect(paymentTransaction(USDT, FROM, TO, '15')).toEqual({ from: FROM, to: USDT.contract, value: '0x0', data });
  });

  test('native: the value in hex wei to the invoice address, no data', () => {
    expect(paymentTransaction(ETH, FROM, TO, '0.5')).toEqual({ from: FROM, to: TO, value: '0x6f05b59d3b20000' });
  });

  test('a malformed address is never sent to', () => {
    expect(() => paymentTransaction(ETH, FROM, '0x1234', '1')).toThrow(/not an EVM address/);
    expect(() => transferData('TWalletAddressxxxxxxxxxxxxxxxxxxxx', 1n)).toThrow();
  });
});

type Handler = (params: unknown) => unknown;

function wallet(handlers: Record<string, Handler>) {
  const calls: Array<{ method: string; params?: unknown }> = [];
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      calls.push(params === undefined ? { method } : { method, params });
      const handler = handlers[method];
      if (!handler) throw Object.assign(new Error(`unexpected ${method}`), { code: 4200 });
      return handler(params);
    },
  };
  return { provider, calls, methods: () => calls.map((c) => c.method) };
}

const rpcError = (code: number, message = `error ${code}`) => Object.assign(new Error(message), { code });

function happy(overrides: Record<string, Handler> = {}, chain = { id: '0x89' }) {
  return wallet({
    eth_requestAccounts: () => [FROM],
    eth_chainId: () => chain.id,
    eth_call: () => '0x' + (10n ** 12n).toString(16),
    eth_getBalance: () => '0x' + (10n ** 21n).toString(16),
    eth_sendTransaction: () => '0xhash',
    ...overrides,
  });
}

describe('payWithWallet', () => {
  test('on the right chain: accounts, balance check, one transfer; nothing else is asked', async () => {
    const w = happy();
    await expect(payWithWallet(w.provider, USDT, TO, '15')).resolves.toBe('0xhash');
    expect(w.methods()).toEqual(['eth_requestAccounts', 'eth_chainId', 'eth_call', 'eth_chainId', 'eth_sendTransaction']);
    expect(w.calls.at(-1)!.params).toEqual([{ from: FROM, to: USDT.contract, value: '0x0', data: transferData(TO, 15_000_000n) }]);
  });

  test('on another chain: switches; on 4902 adds the chain with the registry data, then pays', async () => {
    const chain = { id: '0x1' };
    let added = false;
    const w = happy(
      {
        wallet_switchEthereumChain: () => {
          if (!added) throw rpcError(4902, 'Unrecognized chain ID');
          chain.id = '0x89';
          return null;
        },
        wallet_addEthereumChain: () => {
          added = true;
          return null;
        },
      },
      chain,
    );
    await expect(payWithWallet(w.provider, USDT, TO, '1.5')).resolves.toBe('0xhash');
    expect(w.calls.find((c) => c.method === 'wallet_addEthereumChain')!.params).toEqual([
      {
        chainId: '0x89',
        chainName: 'Polygon',
        nativeCurrency: { name: 'Polygon', symbol: 'POL', decimals: 18 },
        rpcUrls: ['https://polygon-rpc.com'],
        blockExplorerUrls: ['https://polygonscan.com'],
      },
    ]);
    expect(w.methods().filter((m) => m === 'wallet_switchEthereumChain')).toHaveLength(2);
  });

  test('rejected (4001) at connecting, switching or sending', async () => {
    for (const step of ['eth_requestAccounts', 'eth_sendTransaction']) {
      const w = happy({ [step]: () => { throw rpcError(4001, 'User rejected the request.'); } });
      await expect(payWithWallet(w.provider, USDT, TO, '15')).rejects.toMatchObject({ problem: 'rejected' });
    }
    const w = happy({ wallet_switchEthereumChain: () => { throw rpcError(4001); } }, { id: '0x1' });
    await expect(payWithWallet(w.provider, USDT, TO, '15')).rejects.toMatchObject({ problem: 'rejected' });
    expect(w.methods()).not.toContain('eth_sendTransaction');
  });

  test('wrong chain: the wallet cannot switch, or lacks the chain and none can be added', async () => {
    const stays = happy({ wallet_switchEthereumChain: () => null }, { id: '0x1' });
    await expect(payWithWallet(stays.provider, USDT, TO, '15')).rejects.toMatchObject({ problem: 'wrong_chain' });
    const unknown = happy({ wallet_switchEthereumChain: () => { throw rpcError(4902); } }, { id: '0x1' });
    await expect(payWithWallet(unknown.provider, { ...USDT, rpc_urls: [] }, TO, '15')).rejects.toMatchObject({ problem: 'wrong_chain' });
    expect(unknown.methods()).not.toContain('wallet_addEthereumChain');
    expect([...stays.methods(), ...unknown.methods()]).not.toContain('eth_sendTransaction');
  });

  test('insufficient funds: found before asking to send, or reported by the wallet', async () => {
    const poor = happy({ eth_call: () => '0x' + (14_999_999n).toString(16) });
    await expect(payWithWallet(poor.provider, USDT, TO, '15')).rejects.toMatchObject({ problem: 'insufficient' });
    expect(poor.methods()).not.toContain('eth_sendTransaction');
    const onChain = happy({ eth_chainId: () => '0x1', eth_sendTransaction: () => { throw rpcError(-32000, 'insufficient funds for gas * price + value'); } });
    await expect(payWithWallet(onChain.provider, ETH, TO, '0.5')).rejects.toMatchObject({ problem: 'insufficient' });
  });

  test('wallet gone: disconnected, or the provider disappeared', async () => {
    const w = happy({ eth_requestAccounts: () => { throw rpcError(4900, 'Disconnected'); } });
    await expect(payWithWallet(w.provider, USDT, TO, '15')).rejects.toMatchObject({ problem: 'gone' });
    await expect(payWithWallet(undefined as unknown as Eip1193Provider, USDT, TO, '15')).rejects.toMatchObject({ problem: 'gone' });
    const none = happy({ eth_requestAccounts: () => [] });
    await expect(payWithWallet(none.provider, USDT, TO, '15')).rejects.toMatchObject({ problem: 'gone' });
  });

  test('anything else is a plain failure with the wallet’s message', () => {
    expect(classify(rpcError(-32603, 'Internal JSON-RPC error.'))).toMatchObject({ problem: 'failed', message: 'Internal JSON-RPC error.' });
    expect(classify({ code: 4001 })).toBeInstanceOf(WalletError);
    expect(classify({ data: { originalError: { code: 4001 } }, message: 'wrapped' })).toMatchObject({ problem: 'rejected' });
  });
});
