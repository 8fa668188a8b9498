// The period's invoice, paid on the invoice page itself shown in a frame (the widget's inline
// mode: the frame reports its height and the payment through window messages, to this page's own
// origin only). Once it is paid, the recurrence is read again.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useI18n, useT } from './i18n/index.ts';
import './i18n/recurrence-english.ts';
import { useStore } from './store.ts';
import { EMBED_SOURCE, type UncheckedEmbedMessage } from '../contracts/embed.ts';

const INSTANCE = 'recurrence';

export function InvoiceFrame({ uuid }: { uuid: string }) {
  const t = useT();
  const store = useStore();
  const lang = useI18n().lang.value;
  const theme = store.theme.value;
  const frame = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState(520);
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== location.origin || !frame.current || event.source !== frame.current.contentWindow) return;
      const data = event.data as UncheckedEmbedMessage | null;
      if (!data || typeof data !== 'object' || data.source !== EMBED_SOURCE || data.instance !== INSTANCE) return;
      const payload = (data.payload ?? {}) as { height?: unknown; uri?: unknown };
      if (data.type === 'resize' && typeof payload.height === 'number' && payload.height > 0) setHeight(Math.ceil(payload.height));
      if (data.type === 'paid') store.refresh();
      // The frame asks this page to open the payer's wallet app (a payment link).
      if (data.type === 'open-wallet' && typeof payload.uri === 'string' && !/^(javascript|data|vbscript):/i.test(payload.uri)) location.href = payload.uri;
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [uuid]);
  const query = new URLSearchParams({ embed: 'inline', instance: INSTANCE, origin: location.origin, lang, theme });
  return <iframe ref={frame} class="rec-frame" title={t('rec_frame')} src={`/pay/${encodeURIComponent(uuid)}?${query.toString()}`} style={{ height: `${height}px` }} />;
}
