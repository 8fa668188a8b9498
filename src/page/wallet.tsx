// A static wallet: a standing address for top-ups, without amount or countdown.
import { useT } from './i18n/index.ts';
import type { PayerWallet } from '../contracts/payer.ts';
import { CoinIcon, CommentField, Field, Hero, LinkRequiredNote, Notice, OpenWallet, Qr } from './ui.tsx';
import { LockGlyph, WarnGlyph } from './icons.tsx';

export function WalletView({ wallet }: { wallet: PayerWallet }) {
  const t = useT();
  if (wallet.status !== 'active') {
    return (
      <Hero tone="warn" icon={<LockGlyph />} title={t('wallet_closed_title')}>
        <p class="lead">{t('wallet_closed_body')}</p>
      </Hero>
    );
  }
  if (wallet.unavailable || !wallet.address || !wallet.qr_content) {
    return (
      <Hero tone="warn" icon={<WarnGlyph />} title={t('unavailable_title')}>
        <p class="lead">{t('wallet_unavailable_body', { network: wallet.network_name })}</p>
      </Hero>
    );
  }
  const vars = { currency: wallet.currency, network: wallet.network_name };
  return (
    <section class="screen" aria-labelledby="screen-title">
      <div class="screen-head">
        <CoinIcon currency={wallet.currency} />
        <div>
          <h1 id="screen-title" class="title" tabIndex={-1}>
            {t('wallet_title')}
          </h1>
          <p class="subtitle">{t('on_network', vars)}</p>
        </div>
      </div>
      <p class="lead">{t('wallet_body', vars)}</p>
      <Qr content={wallet.qr_content} alt={t('qr_alt_wallet', { address: wallet.address })} />
      <Field id="address" label={t('address')} value={wallet.address} copy={wallet.address} copyLabel={t('copy_address')} mono describedBy={wallet.link_required ? 'link-note' : undefined} />
      {wallet.link_required && <LinkRequiredNote />}
      {wallet.payment_comment && <CommentField comment={wallet.payment_comment} />}
      <Notice tone="warn" icon={<WarnGlyph />}>
        {t('warning', vars)}
      </Notice>
      <div class="actions">
        <OpenWallet uri={wallet.wallet_uri} />
      </div>
    </section>
  );
}
