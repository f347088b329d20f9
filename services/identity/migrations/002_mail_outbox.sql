-- The mail outbox: a mail identity has accepted (a sign-in code or link, an invitation, a security
-- notice) is a row here before the request that caused it is answered; the relay (src/mail/outbox.ts)
-- hands it to the notifier's SendEmail with the row's idempotency key and deletes it once the notifier
-- has acknowledged. The mail itself is sealed (AES-256-GCM, bound to the row id): it holds a code or a
-- link and an address, and neither is readable in the database or a backup.
create table if not exists mail_outbox (
  id uuid primary key,
  purpose text not null,
  sealed text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now()
);

create index if not exists mail_outbox_due_idx on mail_outbox (next_attempt_at);
