-- One row per message the notifier has accepted. The unique idempotency key is what makes a second
-- SendEmail with the same key a no-op; the state machine is what lets several replicas share the work.
--
--   queued  --claim (lease)-->  sending  --250-->  sent
--     ^                           |  \--5xx, too many attempts, expired-->  dead
--     +---4xx / connection error--+
--   A 'sending' row whose lease ran out (its worker died) is due again: next_attempt_at holds the
--   lease expiry while sending, the retry time while queued, and is null once sent or dead.
create table deliveries (
  id uuid primary key,
  idempotency_key text not null unique,
  state text not null default 'queued' check (state in ('queued', 'sending', 'sent', 'dead')),
  template text not null,
  locale text not null,
  -- Cleared to a masked form / an empty object once the message is sent or dead: the OTP or link in
  -- the parameters and the full address are only kept while they are needed to deliver.
  recipient text not null,
  parameters jsonb not null,
  message_id text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz default now(),
  lease_token uuid,
  last_error text,
  valid_until timestamptz,
  -- W3C traceparent of the SendEmail call, so that the send span joins the caller's trace.
  traceparent text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  sent_at timestamptz
);

-- The worker's claim query: due rows among the unfinished ones.
create index deliveries_due on deliveries (next_attempt_at) where state in ('queued', 'sending');
-- Metrics (counts by state except the ever-growing 'sent') and the retention purge.
create index deliveries_open on deliveries (state) where state <> 'sent';
create index deliveries_finished on deliveries (updated_at) where state in ('sent', 'dead');
