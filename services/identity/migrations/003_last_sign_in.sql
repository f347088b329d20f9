-- When each user last signed in (a session was created), for tenant administrators: someone invited
-- who never signed in is told apart from someone who did. Sessions themselves live in Redis.
alter table "user" add column if not exists last_sign_in_at timestamptz;
