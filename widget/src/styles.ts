// The modal's styles. They live in the modal's shadow root as a constructed stylesheet, so the
// merchant's CSS cannot reach them and a strict merchant CSP (no 'unsafe-inline') does not block them.
export const MODAL_CSS = `
:host{all:initial}
dialog{box-sizing:border-box;position:fixed;inset:0;margin:auto;padding:0;border:0;border-radius:16px;
width:min(480px,calc(100vw - 32px));max-width:none;
height:min(var(--h,640px),calc(100vh - 48px));height:min(var(--h,640px),calc(100dvh - 48px));max-height:none;
overflow:hidden;background:#eef0f4;color:#15181e;box-shadow:0 24px 64px rgb(0 0 0/.4);transition:height .15s}
dialog.dark{background:#0d0f13;color:#eceef3}
dialog::backdrop{background:rgb(13 15 19/.62)}
iframe{display:block;width:100%;height:100%;border:0;visibility:hidden}
.ok iframe{visibility:visible}
.ok .x,.ok .s{display:none}
.x{position:absolute;top:10px;right:10px;width:40px;height:40px;border:0;border-radius:50%;background:transparent;
color:inherit;font:28px/1 system-ui,sans-serif;cursor:pointer}
.x:focus-visible{outline:3px solid #3a4dd6}
.s{position:absolute;top:50%;left:50%;width:32px;height:32px;margin:-16px;border:3px solid;border-color:currentColor transparent;
border-radius:50%;animation:r 1s linear infinite;opacity:.6}
@keyframes r{to{transform:rotate(1turn)}}
@media (max-width:520px){dialog{width:100vw;height:100vh;height:100dvh;border-radius:0}}
@media (prefers-reduced-motion:reduce){dialog{transition:none}.s{animation-duration:3s}}
`;
