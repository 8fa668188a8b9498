// Views that only some users need (the page's choosing, static wallets and test mode; the
// dashboard's views and chart) load on first use, keeping the initial script small. A few lines instead of preact/compat's lazy + Suspense.
import { h, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export type LazyView<P> = ComponentType<P> & { preload(): void };

export function lazyView<P extends object>(load: () => Promise<ComponentType<P>>): LazyView<P> {
  let view: ComponentType<P> | null = null;
  let pending: Promise<void> | null = null;
  const start = () =>
    (pending ??= load().then(
      (loaded) => {
        view = loaded;
      },
      () => {
        pending = null; // allow another try on the next render (e.g. after going back online)
      },
    ));

  function LazyView(props: P) {
    const [, setLoaded] = useState(view !== null);
    useEffect(() => {
      if (view) return;
      let live = true;
      void start().then(() => live && view && setLoaded(true));
      return () => {
        live = false;
      };
    }, []);
    return view ? h(view, props) : <div class="loading" aria-busy="true"><span class="spinner" aria-hidden="true" /></div>;
  }
  LazyView.preload = () => void start();
  return LazyView;
}
