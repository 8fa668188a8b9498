// Payments made the way a payer makes them, on the real TVM in @ton/sandbox: a payer is a wallet
// v4r2 (@ton/ton's code) with its own key, and every payment is an external message signed with
// that key, executed by the wallet contract, which sends the internal message. Jettons are the
// jetton minter and wallet of @ton-community/assets-sdk, minted by their admin's own v4 wallet.
//
// Funding comes from a sandbox treasury (the faucet of a test chain). Everything else an account
// holds comes from executed messages; the double records every transaction the sandbox runs.
import { createHash } from 'node:crypto';
import { Address, beginCell, Cell, comment as commentCell, contractAddress, internal, SendMode, toNano, type MessageRelaxed, type Transaction } from '@ton/core';
import { keyPairFromSeed, type KeyPair } from '@ton/crypto';
import { createShardAccount, type SandboxContract, type SendMessageResult } from '@ton/sandbox';
import { WalletContractV4 } from '@ton/ton';
import { JettonMinter, JettonWallet, storeJettonMintMessage } from '@ton-community/assets-sdk';
import type { TonDouble } from './toncenter.ts';

export const OP_JETTON_TRANSFER = 0x0f8a7ea5;
export const OP_TRANSFER_NOTIFICATION = 0x7362d09c;

export interface Payer {
  name: string;
  address: Address;
  keyPair: KeyPair;
  wallet: SandboxContract<WalletContractV4>;
  /** Signs and sends one external message carrying these internal messages; resolves when the chain of transactions ran. */
  send(messages: MessageRelaxed[]): Promise<SendMessageResult>;
}

export interface Jetton {
  name: string;
  master: Address;
  admin: Payer;
  /** Mints `amount` (base units) to `owner`'s jetton wallet (deployed by the mint if needed). */
  mint(owner: Address | Payer, amount: bigint): Promise<SendMessageResult>;
  /** The owner's jetton wallet, as the master's get_wallet_address answers. */
  walletOf(owner: Address | Payer): Promise<Address>;
  /** The jetton balance of the owner's wallet (0 when it does not exist). */
  balanceOf(owner: Address | Payer): Promise<bigint>;
}

export interface Payment {
  result: SendMessageResult;
  /** The transaction on the destination account that received the message, if one ran. */
  received: Transaction | undefined;
}

const addr = (x: Address | Payer | string): Address => (typeof x === 'string' ? Address.parse(x) : x instanceof Address ? x : x.address);

export interface Scenario {
  payerWallet(name: string, opts?: { fund?: bigint }): Promise<Payer>;
  sendTon(from: Payer, to: string | Address, amountNano: bigint, comment: string | null, opts?: { bounce?: boolean; binaryBody?: Cell }): Promise<Payment>;
  deployJetton(name: string, opts?: { admin?: Payer }): Promise<Jetton>;
  /** A second master with the same code and content but another admin: its wallets are other addresses, its notifications look the same. */
  deployFakeJetton(of: Jetton): Promise<Jetton>;
  sendJetton(fromOwner: Payer, master: Jetton, toOwner: string | Address, amount: bigint, comment: string | null, forwardTonAmount: bigint): Promise<Payment>;
  /** A deployed contract that throws on every message it receives, so a bounceable message to it bounces. */
  deployRejecter(name: string): Promise<Address>;
  /** A bounceable payment to an address with no contract: it bounces back to the payer. */
  sendBouncing(from: Payer, to: string | Address, amountNano: bigint, comment: string | null): Promise<Payment>;
  /** A fresh address nobody has used (uninitialized, no balance). */
  freshAddress(label: string): Address;
}

const seed = (label: string) => createHash('sha256').update(`satchel-ton-double:${label}`).digest();

function receivedBy(result: SendMessageResult, to: Address): Transaction | undefined {
  return result.transactions.find((t) => {
    const i = t.inMessage?.info;
    return i?.type === 'internal' && i.dest.equals(to);
  });
}

export function scenario(double: TonDouble): Scenario {
  const bc = double.blockchain;
  const payers = new Map<string, Payer>();

  async function payerWallet(name: string, opts?: { fund?: bigint }): Promise<Payer> {
    const known = payers.get(name);
    if (known) return known;
    const keyPair = keyPairFromSeed(seed(`payer:${name}`));
    const wallet = bc.openContract(WalletContractV4.create({ workchain: 0, publicKey: keyPair.publicKey }));
    const faucet = await bc.treasury('faucet', { balance: 10n ** 18n });
    await faucet.send({ to: wallet.address, value: opts?.fund ?? toNano('1000'), bounce: false });
    const payer: Payer = {
      name,
      address: wallet.address,
      keyPair,
      wallet,
      async send(messages) {
        const seqno = await wallet.getSeqno();
        const transfer = wallet.createTransfer({ seqno, secretKey: keyPair.secretKey, messages, sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS });
        // The first transfer carries the wallet's StateInit (deploys it), as wallets do.
        const st = (await bc.getContract(wallet.address)).accountState;
        return bc.sendMessage({
          info: { type: 'external-in', dest: wallet.address, importFee: 0n },
          init: st?.type === 'active' ? undefined : wallet.init,
          body: transfer,
        });
      },
    };
    payers.set(name, payer);
    return payer;
  }

  async function sendTon(from: Payer, to: string | Address, amountNano: bigint, comment: string | null, opts?: { bounce?: boolean; binaryBody?: Cell }): Promise<Payment> {
    const dest = addr(to);
    const body = opts?.binaryBody ?? (comment === null ? undefined : commentCell(comment));
    // Non-bounceable by default: what wallets send to an address that may not be deployed yet.
    const result = await from.send([internal({ to: dest, value: amountNano, bounce: opts?.bounce ?? false, body })]);
    return { result, received: receivedBy(result, dest) };
  }

  function jettonOf(name: string, admin: Payer, minter: SandboxContract<JettonMinter>): Jetton {
    const walletOf = async (owner: Address | Payer) => minter.getWalletAddress(addr(owner));
    return {
      name,
      master: minter.address,
      admin,
      walletOf,
      async mint(owner, amount) {
        const body = beginCell()
          .store(
            storeJettonMintMessage({
              queryId: 0n,
              amount,
              from: minter.address,
              to: addr(owner),
              responseAddress: admin.address,
              forwardPayload: null,
              forwardTonAmount: 0n,
              walletForwardValue: toNano('0.05'),
            }),
          )
          .endCell();
        return admin.send([internal({ to: minter.address, value: toNano('0.1'), bounce: true, body })]);
      },
      async balanceOf(owner) {
        const w = await walletOf(owner);
        const sc = await bc.getContract(w);
        if (sc.accountState?.type !== 'active') return 0n;
        return (await bc.openContract(JettonWallet.createFromAddress(w)).getData()).balance;
      },
    };
  }

  const content = (name: string) => beginCell().storeUint(1, 8).storeStringTail(`https://example.invalid/jetton/${name}.json`).endCell();

  async function deployMinter(name: string, admin: Payer, contentOf: string): Promise<Jetton> {
    const minter = bc.openContract(JettonMinter.createFromConfig({ admin: admin.address, content: content(contentOf) }));
    await admin.send([internal({ to: minter.address, value: toNano('0.1'), bounce: false, init: minter.init, body: new Cell() })]);
    if ((await bc.getContract(minter.address)).accountState?.type !== 'active') throw new Error(`jetton master ${name} did not deploy`);
    return jettonOf(name, admin, minter);
  }

  async function deployJetton(name: string, opts?: { admin?: Payer }): Promise<Jetton> {
    return deployMinter(name, opts?.admin ?? (await payerWallet(`jetton-admin:${name}`)), name);
  }

  async function deployFakeJetton(of: Jetton): Promise<Jetton> {
    return deployMinter(`${of.name} (fake)`, await payerWallet(`fake-jetton-admin:${of.name}`), of.name);
  }

  async function sendJetton(fromOwner: Payer, master: Jetton, toOwner: string | Address, amount: bigint, comment: string | null, forwardTonAmount: bigint): Promise<Payment> {
    const to = addr(toOwner);
    const fromWallet = await master.walletOf(fromOwner);
    // TEP-74 transfer; the comment travels as the forward payload (a reference), which the
    // recipient's jetton wallet hands to the recipient in transfer_notification.
    const b = beginCell().storeUint(OP_JETTON_TRANSFER, 32).storeUint(0, 64).storeCoins(amount).storeAddress(to).storeAddress(fromOwner.address).storeBit(0).storeCoins(forwardTonAmount);
    const body = comment === null ? b.storeBit(0).endCell() : b.storeBit(1).storeRef(commentCell(comment)).endCell();
    const result = await fromOwner.send([internal({ to: fromWallet, value: forwardTonAmount + toNano('0.1'), bounce: true, body })]);
    return { result, received: receivedBy(result, to) };
  }

  async function deployRejecter(name: string): Promise<Address> {
    // Code: THROW 33 as the first instruction, so every incoming message fails its compute phase.
    const code = beginCell().storeUint(0xf221, 16).endCell();
    const data = beginCell().storeBuffer(seed(`rejecter:${name}`)).endCell();
    const address = contractAddress(0, { code, data });
    await bc.setShardAccount(address, createShardAccount({ address, code, data, balance: toNano('1') }));
    return address;
  }

  async function sendBouncing(from: Payer, to: string | Address, amountNano: bigint, comment: string | null): Promise<Payment> {
    return sendTon(from, to, amountNano, comment, { bounce: true });
  }

  const freshAddress = (label: string) => new Address(0, seed(`fresh:${label}`));

  return { payerWallet, sendTon, deployJetton, deployFakeJetton, sendJetton, deployRejecter, sendBouncing, freshAddress };
}
