// The start of the <head> both apps' index.html share: each page writes HEAD_MARKER where these
// tags go, and the build (sharedHead, a Vite plugin in both apps' configs) puts them there.
export const HEAD_MARKER = '<!-- ui-kit: shared head -->';

const TAGS = ['<meta charset="utf-8" />', '<meta name="viewport" content="width=device-width, initial-scale=1" />', '<meta name="color-scheme" content="light dark" />'];

/** A Vite plugin (structurally: no Vite types in the browser code) that writes the shared tags. */
export function sharedHead(): { name: string; transformIndexHtml: { order: 'pre'; handler: (html: string) => string } } {
  return {
    name: 'satchel-shared-head',
    transformIndexHtml: {
      order: 'pre',
      handler(html) {
        const at = html.indexOf(HEAD_MARKER);
        if (at < 0 || html.indexOf(HEAD_MARKER, at + 1) >= 0) throw new Error(`index.html: expected exactly one ${HEAD_MARKER}`);
        const indent = /[ \t]*$/.exec(html.slice(0, at))?.[0] ?? '';
        return html.replace(HEAD_MARKER, TAGS.join(`\n${indent}`));
      },
    },
  };
}
