// Table types: The merchant dashboard: users, sign-in links, sessions, login throttle, audit log.
// Amounts are text (exact decimals); booleans are 0/1 integers; times are integer milliseconds
// since the epoch unless named *_at_s (seconds).

/** Dashboard users (migration 010). `merchant_id` is null for an instance admin. */
export interface DashboardUsersTable {
  id: string;
  merchant_id: string | null;
  /** Lower-cased. */
  email: string;
  /** owner | viewer | admin */
  role: string;
  /** scrypt$N$r$p$salt$hash, or null until the user has set a password. */
  password_hash: string | null;
  disabled: number;
  created_at: number;
  updated_at: number;
  /** The dashboard's language for this user (a payment page language code); null: the browser's (migration 026). */
  language: string | null;
}

/** One-time set-password links (migration 010); only the SHA-256 of the token is stored. */
export interface DashboardLinksTable {
  token_hash: string;
  user_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** Dashboard sessions (migration 010); only the SHA-256 of the cookie's token is stored. */
export interface DashboardSessionsTable {
  token_hash: string;
  user_id: string;
  /** The CSRF token the page sends back in a header on every state-changing request. */
  csrf: string;
  created_at: number;
  seen_at: number;
  /** Absolute expiry; the idle expiry is measured from `seen_at`. */
  expires_at: number;
  ip: string | null;
}

/** Failed sign-ins per account ("account:<email>") and per address ("ip:<addr>") in a window. */
export interface DashboardLoginThrottleTable {
  key: string;
  failures: number;
  window_start: number;
}

/** What dashboard users did that moves money or changes settings (migration 010). */
export interface DashboardAuditTable {
  id: string;
  merchant_id: string | null;
  user_id: string | null;
  email: string;
  action: string;
  target: string | null;
  /** JSON. */
  detail: string | null;
  ip: string | null;
  created_at: number;
}
