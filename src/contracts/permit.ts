// EIP-2612's Permit as typed data: what the payer's wallet signs (../page/evm-tx.ts, with
// eth_signTypedData_v4) and what the gateway recovers the signer from (../chain/evm/pull.ts). One
// definition, so the two cannot disagree on a field.
export const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;
