// Building blocks shared by the screens.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { isRtlLocale, useI18n, useT } from './i18n/index.ts';
import { formatAmount } from './format.ts';
import { qrDataUrl } from './qr.ts';
import { useStore } from './store.ts';
import { CheckGlyph, CopyGlyph, WalletGlyph, WarnGlyph } from './icons.tsx';
import { walletHref, webHref } from '../ui-kit/links.ts';
import { copyText } from '../ui-kit/clipboard.ts';

/** Currencies with their own artwork under public/icons/; others get the generic coin. */
const ICONS = new Set(['BTC', 'LTC', 'DOGE', 'ETH', 'BNB', 'POL', 'AVAX', 'TRX', 'TON', 'SOL', 'XMR', 'USDT', 'USDC']);

export function iconUrl(currency: string): string {
  const code = currency.toUpperCase();
  return `${import.meta.env.BASE_URL}icons/${ICONS.has(code) ? code : 'generic'}.svg`;
}

export function CoinIcon({ currency, size = 40 }: { currency: string; size?: number }) {
  return <img class="coin" src={iconUrl(currency)} alt="" width={size} height={size} />;
}

/**
 * Formats an amount for the current language (digits untouched, separators localised).
 * Crypto amounts drop trailing zeros; pass `exact` for order totals, which keep them.
 */
export function useAmount(): (value: string, currency: string, exact?: boolean) => string {
  const locale = useI18n().locale.value;
  // "20 USDT" stays in that order inside right-to-left text (left-to-right isolate).
  const [open, close] = isRtlLocale(locale) ? ['\u2066', '\u2069'] : ['', ''];
  return (value, currency, exact = false) => `${open}${formatAmount(value, currency, locale, exact)}${close}`;
}

export function CopyButton({ text, label, describedBy }: { text: string; label: string; describedBy?: string }) {
  const t = useT();
  const store = useStore();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2500);
    return () => clearTimeout(timer);
  }, [copied]);

  async function copy() {
    const ok = await copyText(text);
    setCopied(ok);
    store.announce(ok ? t('copied') : t('copy_failed'));
  }

  return (
    // Short visible text fits beside the field's label on a 320 px phone; the name says what is
    // copied and contains the visible word (WCAG 2.5.3).
    <button type="button" class={copied ? 'copy is-copied' : 'copy'} onClick={copy} aria-label={copied ? undefined : label} aria-describedby={describedBy}>
      {copied ? <CheckGlyph /> : <CopyGlyph />}
      <span>{copied ? t('copied') : t('copy')}</span>
    </button>
  );
}

/** A labelled value the payer may copy: amount or address. */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  copy: string;
  copyLabel: string;
  mono?: boolean;
  /** Set apart from the other fields: something the payer must not leave out. */
  strong?: boolean;
  /** The id of a note the copy button is described by (a warning about this value). */
  describedBy?: string;
  children?: ComponentChildren;
}) {
  return (
    <div class={props.strong ? 'field field-strong' : 'field'}>
      <div class="field-head">
        <span class="label" id={`${props.id}-label`}>
          {props.label}
        </span>
        <CopyButton text={props.copy} label={props.copyLabel} describedBy={props.describedBy} />
      </div>
      <p class={props.mono ? 'value mono' : 'value'} id={props.id}>
        {props.value}
      </p>
      {props.children}
    </div>
  );
}

/**
 * The comment a payment must carry, where the network tells payments apart by it: set apart, with
 * its own copy button, and the warning that a payment without it cannot be matched (which the
 * copy button is described by, so a screen reader says it too).
 */
export function CommentField({ comment }: { comment: string }) {
  const t = useT();
  return (
    <>
      <Field id="comment" label={t('comment')} value={comment} copy={comment} copyLabel={t('copy_comment')} mono strong describedBy="comment-note" />
      <Notice tone="warn" icon={<WarnGlyph />} id="comment-note">
        {t('comment_warning')}
      </Notice>
    </>
  );
}

/**
 * Where the payment must be made with the wallet link or the QR code (they carry a reference no
 * payer can type): says so, and that a payment typed in by hand cannot be matched. The address's
 * copy button is described by it, so a screen reader says it too.
 */
export function LinkRequiredNote() {
  const t = useT();
  return (
    <Notice tone="warn" icon={<WarnGlyph />} id="link-note">
      {t('link_required')}
    </Notice>
  );
}

export function Qr({ content, alt }: { content: string; alt: string }) {
  const t = useT();
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    qrDataUrl(content).then(
      (url) => live && setSrc(url),
      () => live && setSrc(null),
    );
    return () => {
      live = false;
    };
  }, [content]);
  return (
    <div class="qr">
      {src ? (
        <img src={src} alt={alt} width={232} height={232} />
      ) : (
        <div class="qr-wait" role="img" aria-label={t('qr_loading')} />
      )}
    </div>
  );
}

export function OpenWallet({ uri }: { uri: string | null }) {
  const t = useT();
  const store = useStore();
  const href = walletHref(uri);
  if (!href) return null;
  const onClick = (event: JSX.TargetedMouseEvent<HTMLAnchorElement>) => {
    // Deep links do not open from inside an iframe: the embedding page opens it instead.
    if (store.openWallet(href)) event.preventDefault();
  };
  return (
    <a class="btn btn-primary" href={href} onClick={onClick}>
      <WalletGlyph />
      {t('open_wallet')}
    </a>
  );
}

/** A link back to the merchant, breaking out of the widget's iframe when embedded. */
export function StoreLink({ url, label, primary }: { url: string | null; label: string; primary?: boolean }) {
  const store = useStore();
  const href = webHref(url);
  if (!href) return null;
  return (
    <a class={primary ? 'btn btn-primary' : 'btn btn-quiet'} href={href} target={store.embed ? '_top' : undefined}>
      {label}
    </a>
  );
}

export function Notice({ tone, icon, id, children }: { tone: 'warn' | 'info'; icon: JSX.Element; id?: string; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${tone}`}>
      {icon}
      <p id={id}>{children}</p>
    </div>
  );
}

export type HeroTone = 'success' | 'warn' | 'danger' | 'neutral' | 'progress';

/** A centred screen with a big icon: outcomes, errors. */
export function Hero(props: { tone: HeroTone; icon: JSX.Element; title: string; children: ComponentChildren }) {
  return (
    <section class={`screen hero hero-${props.tone}`} aria-labelledby="screen-title">
      <div class="hero-icon">{props.icon}</div>
      <h1 id="screen-title" class="title" tabIndex={-1}>
        {props.title}
      </h1>
      {props.children}
    </section>
  );
}

