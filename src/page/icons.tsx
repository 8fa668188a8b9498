// Small interface glyphs, drawn inline (SVG markup is not a style attribute, so CSP is happy).
import type { JSX } from 'preact';

type GlyphProps = { class?: string };

function Glyph({ children, class: className = 'glyph' }: GlyphProps & { children: JSX.Element | JSX.Element[] }) {
  return (
    <svg class={className} viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"
      fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
      {children}
    </svg>
  );
}

export const CopyGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <rect x="9" y="9" width="11" height="11" rx="2" />
    <path d="M5 15V6a2 2 0 0 1 2-2h8" />
  </Glyph>
);

export const CheckGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <path d="M5 12.5l4.5 4.5L19 7.5" />
  </Glyph>
);

export const WarnGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <path d="M12 3.5L2.5 20h19z" />
    <path d="M12 10v4.5M12 17.3v.2" />
  </Glyph>
);

export const InfoGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 11v5.5M12 7.7v.2" />
  </Glyph>
);

export const CrossGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <path d="M6.5 6.5l11 11M17.5 6.5l-11 11" />
  </Glyph>
);

export const ClockGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 7v5l3 2" />
  </Glyph>
);

export const WalletGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <path d="M4 7.5A2.5 2.5 0 0 1 6.5 5H18v3" />
    <rect x="4" y="8" width="16" height="11" rx="2.5" />
    <path d="M16 13.5h.5" />
  </Glyph>
);

export const RefreshGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <path d="M20 11a8 8 0 0 0-14.6-4.5M4 13a8 8 0 0 0 14.6 4.5" />
    <path d="M5 3v4h4M19 21v-4h-4" />
  </Glyph>
);

export const SearchGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <circle cx="11" cy="11" r="6.5" />
    <path d="M16 16l4.5 4.5" />
  </Glyph>
);

export const LockGlyph = (p: GlyphProps) => (
  <Glyph {...p}>
    <rect x="5" y="10.5" width="14" height="10" rx="2" />
    <path d="M8 10.5V8a4 4 0 0 1 8 0v2.5" />
  </Glyph>
);
