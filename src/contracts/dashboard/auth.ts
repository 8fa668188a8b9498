// The dashboard's sign-in, set-password links, the signed-in user's view, users and the audit log.
import * as z from 'zod/mini';
import { get, NoBody, post, text } from './route.ts';
import { PAGE_LANGUAGES } from '../payer.ts';

export const Me = z.object({
  /** `language`: the dashboard's language the user chose (one of the payment page's); null: the browser's. */
  user: z.object({ id: z.string(), email: z.string(), role: z.string(), language: z.nullable(z.enum(PAGE_LANGUAGES)) }),
  can_manage: z.boolean(),
  merchant: z.object({ id: z.string(), name: z.string(), blocked: z.boolean() }),
  /** Every merchant, for an instance admin (who picks the one in view); null for others. */
  merchants: z.nullable(z.array(z.object({ id: z.string(), name: z.string() }))),
  csrf: z.string(),
  test_mode: z.boolean(),
  public_url: z.string(),
  /** Whether the gateway can send email (an SMTP server is configured): invites go out by email. */
  email_enabled: z.optional(z.boolean()),
});
export type Me = z.infer<typeof Me>;

export const User = z.object({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  disabled: z.boolean(),
  has_password: z.boolean(),
  created_at: z.number(),
});
export type User = z.infer<typeof User>;

export const AuditEntry = z.object({
  id: z.string(),
  at: z.number(),
  email: z.string(),
  action: z.string(),
  target: z.nullable(z.string()),
  detail: z.unknown(),
  ip: z.nullable(z.string()),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const InviteEmail = z.object({ sent: z.boolean(), reason: z.nullable(z.string()) });
export type InviteEmail = z.infer<typeof InviteEmail>;

const UserRef = z.object({ id: z.optional(z.string()) });

export const authApi = {
  login: post('/login', 'public', z.object({ email: text, password: text }), Me),
  link: post('/link', 'public', z.object({ token: text }), z.object({ email: z.string(), has_password: z.boolean() })),
  setPassword: post('/set-password', 'public', z.object({ token: text, password: text }), Me),
  me: get('/me', Me),
  logout: post('/logout', 'session', NoBody, z.object({ signed_out: z.boolean() })),
  logoutAll: post('/logout-all', 'session', NoBody, z.object({ signed_out: z.number() })),
  users: get('/users', z.array(User)),
  /** `email`: null while the gateway sends no email; else whether the invitation went out, and why not. */
  invite: post('/users', 'manage', z.object({ email: text, role: text }), z.object({ user: User, link: z.string(), email: z.optional(z.nullable(InviteEmail)) })),
  removeUser: post('/users/remove', 'manage', UserRef, User),
  resetLink: post('/users/reset-link', 'manage', UserRef, z.object({ link: z.string() })),
  /** The signed-in user's dashboard language; null or "" goes back to the browser's. */
  setLanguage: post('/me/language', 'session', z.object({ language: z.optional(z.nullable(z.string())) }), z.object({ language: z.nullable(z.enum(PAGE_LANGUAGES)) })),
  audit: get('/audit', z.array(AuditEntry), { access: 'manage', query: ['before_t', 'before_id'] }),
} as const;
